--[[
  Marks a pending inquiry's planned escalation as done: the first caller does it; the
  caller then lists the inquiry for the added users.

  Input:
    KEYS[1] inquiry hash  inq:{<id>}

    ARGV[1] escalatedAt, epoch ms
    ARGV[2] this call's token (a re-sent command must not turn its own escalation into "already")
    ARGV[3] the audit record's id ('' for none), written as the hash field `audit:<id>` with the escalation
    ARGV[4] the audit record, JSON

  Output (after the code: inquiry, status, resolution, suggested, votes, escalatedAt):
    {1, ...}  escalated by this call
    {0}       escalated already (by another call)
    {-2}      not pending
    {-1}      not found
]]
local f = redis.call('HMGET', KEYS[1], 'inquiry', 'status', 'resolution', 'suggested', 'votes', 'escalatedAt',
  'escalateOp')
if not f[1] then
  return {-1}
end
if f[2] ~= 'pending' then
  return {-2}
end
if f[6] then
  if f[7] == ARGV[2] then
    return {1, f[1], f[2], f[3], f[4], f[5], f[6]}
  end
  return {0}
end
redis.call('HSET', KEYS[1], 'escalatedAt', ARGV[1], 'escalateOp', ARGV[2])
if (ARGV[3] or '') ~= '' then
  redis.call('HSET', KEYS[1], 'audit:' .. ARGV[3], ARGV[4])
end
return {1, f[1], f[2], f[3], f[4], f[5], ARGV[1]}
