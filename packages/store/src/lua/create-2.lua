--[[
  Writes a new inquiry's hash unless it already exists, so a create retried after a crash between
  reserve-3.lua and this script re-creates the same id once. (Step 2 of create.)

  Input:
    KEYS[1] inquiry hash           inq:{<id>}
    KEYS[2] inquiry events stream  inq:{<id>}:events

    ARGV[1] the inquiry as created, JSON (no status, no suggested answer)
    ARGV[2] TTL of both keys, ms (service deadline + retention)
    ARGV[3] suggested answer, JSON, or '' for none
    ARGV[4] createdAt, epoch ms (event field)
    ARGV[5] this call's token (a re-sent command must not turn its own create into "existed")

  Output:
    {1}                                          created (by this call, even if re-sent)
    {0, inquiry, status, resolution, suggested, votes, escalatedAt}
                                                 it already existed: its stored fields; nothing written
]]
if redis.call('EXISTS', KEYS[1]) == 1 then
  local f = redis.call('HMGET', KEYS[1], 'inquiry', 'status', 'resolution', 'suggested', 'votes', 'escalatedAt',
    'createOp')
  if f[7] == ARGV[5] then
    return {1}
  end
  return {0, f[1], f[2], f[3], f[4], f[5], f[6]}
end

redis.call('HSET', KEYS[1], 'inquiry', ARGV[1], 'status', 'pending', 'createOp', ARGV[5])
if ARGV[3] ~= '' then
  redis.call('HSET', KEYS[1], 'suggested', ARGV[3])
end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', 64, '*', 'type', 'created', 'at', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return {1}
