--[[
  Casts one vote on a pending quorum approval, atomically: a user votes once, a reject
  vetoes, the approval that brings the approvals to the quorum approves. A deciding vote ends the
  inquiry exactly as resolve-1.lua does (retention, event log, publish), its votes included.

  Input:
    KEYS[1] inquiry hash  inq:{<id>}

    ARGV[1] voter's user id
    ARGV[2] the vote, JSON ({userId, deviceId?, deviceName?, vote, at})
    ARGV[3] 'approve' | 'reject'
    ARGV[4] the resolution this vote writes if it decides, JSON
    ARGV[5] retention, ms (the hash's TTL once resolved)
    ARGV[6] the node channels' prefix (keys.ts nodeChannelPrefix)
    ARGV[7] the vote's time, epoch ms (event log)
    ARGV[8] this call's token (a re-sent command must not turn its own vote into "already voted")
    ARGV[9] the inquiry id
    ARGV[10] the voting node's tag
    ARGV[11] '1' on one Redis: a deciding vote publishes to the waiting nodes from here; '0' on a
             Cluster: the caller publishes the message of a `{1, ...}` reply (as resolve-1.lua)
    ARGV[12], ARGV[13] the vote's audit record id ('' for none) and JSON: the hash field
             `audit:<id>` when the vote is counted or decides
    ARGV[14], ARGV[15] the ending's audit record id ('' for none) and JSON: written when it decides

  The quorum (approvals needed) is read from the stored inquiry's `quorum`. Hash fields this script
  adds: votes (JSON array, in order), approvals (count), voter:<userId> (the token of the call that
  cast that user's vote).

  Output (after the code: inquiry, status, resolution, suggested, votes, escalatedAt):
    {1, ..., waiters, message}   this vote decided it, as resolve-1.lua (a re-sent deciding call gets this again)
    {2, ...}   counted; still pending
    {-4, ...}  this user had voted already; nothing written
    {0, ...}   it had already ended
    {-1}       not found
]]
local g = redis.call('HMGET', KEYS[1], 'inquiry', 'status', 'resolution', 'suggested', 'votes', 'escalatedAt',
  'resolveOp', 'voter:' .. ARGV[1])
if not g[1] then
  return {-1}
end
-- Already ended: by this call itself (re-sent after a lost reply) end-pending gives the winning
-- reply again; by anyone else, the vote lost.
local ended = g[2] ~= 'pending'
if ended and g[7] ~= ARGV[8] then
  return {0, g[1], g[2], g[3], g[4], g[5], g[6]}
end
if not ended then
  if g[8] then
    return {g[8] == ARGV[8] and 2 or -4, g[1], g[2], g[3], g[4], g[5], g[6]}
  end
  local votes = g[5] and (string.sub(g[5], 1, -2) .. ',' .. ARGV[2] .. ']') or ('[' .. ARGV[2] .. ']')
  redis.call('HSET', KEYS[1], 'votes', votes, 'voter:' .. ARGV[1], ARGV[8])
  if (ARGV[12] or '') ~= '' then
    redis.call('HSET', KEYS[1], 'audit:' .. ARGV[12], ARGV[13])
  end
  local approvals = 0
  if ARGV[3] == 'approve' then
    approvals = redis.call('HINCRBY', KEYS[1], 'approvals', 1)
  end
  local quorum = tonumber(cjson.decode(g[1]).quorum) or 1
  if ARGV[3] ~= 'reject' and approvals < quorum then
    return {2, g[1], g[2], g[3], g[4], votes, g[6]}
  end
end

local hashKey, status, resolutionJson, retentionMs, nodeChannelPrefix, resolvedAt, resolveOp =
  KEYS[1], 'answered', ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8]
local inquiryId, ownTag, publishHere, addressedTo = ARGV[9], ARGV[10], ARGV[11] == '1', false
local auditId, auditJson = ARGV[14] or '', ARGV[15]
-- #include end-pending
return won
