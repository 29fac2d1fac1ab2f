--[[
  Writes a new inquiry's hash unless it already exists, so a create retried after a crash between
  reserve-3.lua and this script re-creates the same id once. (Step 2 of create on a Redis Cluster,
  where the user's keys and the inquiry's live in different slots; on one Redis, create-at-once-8.lua
  does all of create in one step.)

  Input:
    KEYS[1] inquiry hash           inq:{<id>}

    ARGV[1] the inquiry as created, JSON (no status, no suggested answer)
    ARGV[2] TTL, ms (service deadline + retention)
    ARGV[3] suggested answer, JSON, or '' for none
    ARGV[4] createdAt, epoch ms (event log)
    ARGV[5] this call's token (a re-sent command must not turn its own create into "existed")
    ARGV[6] the creating node's tag (the inquiry's first `waiters` entry)

  Output:
    {1}                                          created (by this call, even if re-sent)
    {0, inquiry, status, resolution, suggested, votes, escalatedAt}
                                                 it already existed: its stored fields; nothing written
]]
local hashKey = KEYS[1]
if redis.call('EXISTS', hashKey) == 1 then
  local f = redis.call('HMGET', hashKey, 'inquiry', 'status', 'resolution', 'suggested', 'votes', 'escalatedAt',
    'createOp')
  if f[7] == ARGV[5] then
    return {1}
  end
  return {0, f[1], f[2], f[3], f[4], f[5], f[6]}
end

local inquiryJson, ttlMs, suggestedJson, createdAt, createOp, waiterTag = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5],
  ARGV[6]
-- #include write-new
return {1}
