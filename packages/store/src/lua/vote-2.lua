--[[
  Casts one vote on a pending quorum approval (DESIGN §6.5), atomically: a user votes once, a reject
  vetoes, the approval that brings the approvals to the quorum approves. A deciding vote resolves the
  inquiry exactly as resolve-2.lua does (retention, event, publish), its votes included.

  Input:
    KEYS[1] inquiry hash           inq:{<id>}
    KEYS[2] inquiry events stream  inq:{<id>}:events

    ARGV[1] voter's user id
    ARGV[2] the vote, JSON ({userId, deviceId?, deviceName?, vote, at})
    ARGV[3] 'approve' | 'reject'
    ARGV[4] the resolution this vote writes if it decides, JSON
    ARGV[5] retention, ms (TTL of both keys once resolved)
    ARGV[6] pub/sub channel for resolutions
    ARGV[7] the vote's time, epoch ms (event field)
    ARGV[8] this call's token (a re-sent command must not turn its own vote into "already voted")

  The quorum (approvals needed) is read from the stored inquiry's `quorum`.

  Hash fields this script adds: votes (JSON array, in order), approvals (count), voter:<userId> (the
  token of the call that cast that user's vote).

  Output (after the code: inquiry, status, resolution, suggested, votes, escalatedAt):
    {1, ...}   this vote decided it; the message went to ARGV[6] (a re-sent deciding call gets this again)
    {2, ...}   counted; still pending
    {-4, ...}  this user had voted already; nothing written
    {0, ...}   it had already ended
    {-1}       not found
]]
local f = redis.call('HMGET', KEYS[1], 'inquiry', 'status', 'resolution', 'suggested', 'votes', 'escalatedAt',
  'resolveOp', 'voter:' .. ARGV[1])
if not f[1] then
  return {-1}
end
if f[2] ~= 'pending' then
  local mine = f[7] == ARGV[8]
  return {mine and 1 or 0, f[1], f[2], f[3], f[4], f[5], f[6]}
end
if f[8] then
  return {f[8] == ARGV[8] and 2 or -4, f[1], f[2], f[3], f[4], f[5], f[6]}
end

local votes = f[5] and (string.sub(f[5], 1, -2) .. ',' .. ARGV[2] .. ']') or ('[' .. ARGV[2] .. ']')
redis.call('HSET', KEYS[1], 'votes', votes, 'voter:' .. ARGV[1], ARGV[8])
local approvals = 0
if ARGV[3] == 'approve' then
  approvals = redis.call('HINCRBY', KEYS[1], 'approvals', 1)
end
local quorum = tonumber(cjson.decode(f[1]).quorum) or 1
if ARGV[3] ~= 'reject' and approvals < quorum then
  return {2, f[1], f[2], f[3], f[4], votes, f[6]}
end

redis.call('HSET', KEYS[1], 'status', 'answered', 'resolution', ARGV[4], 'resolveOp', ARGV[8])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('XADD', KEYS[2], 'MAXLEN', '~', 64, '*', 'type', 'resolved', 'status', 'answered', 'at', ARGV[7])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
local message = '{"inquiry":' .. f[1] .. ',"resolution":' .. ARGV[4] .. ',"suggested":' .. (f[4] or 'null') ..
  ',"votes":' .. votes .. ',"escalatedAt":' .. (f[6] or 'null') .. '}'
redis.call('PUBLISH', ARGV[6], message)
return {1, f[1], 'answered', ARGV[4], f[4], votes, f[6]}
