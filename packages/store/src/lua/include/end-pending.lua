-- The first-answer-wins step: ends the inquiry if it is pending, else returns (lost / not found).
-- The caller has set the locals:
--   hashKey, status, resolutionJson, retentionMs, channel, resolvedAt, resolveOp
-- and reads `f` (the stored fields before the write: inquiry, status, resolution, suggested, resolveOp,
-- events, votes, escalatedAt) after it; a reply lists them as {code, f[1..4], f[7], f[8]}.
local f = redis.call('HMGET', hashKey, 'inquiry', 'status', 'resolution', 'suggested', 'resolveOp', 'events', 'votes',
  'escalatedAt')
if not f[1] then
  return {-1}
end
if f[2] ~= 'pending' then
  return {f[5] == resolveOp and 1 or 0, f[1], f[2], f[3], f[4], f[7], f[8]}
end

local events = (f[6] or '') .. ';resolved ' .. status .. ' ' .. resolvedAt
redis.call('HSET', hashKey, 'status', status, 'resolution', resolutionJson, 'resolveOp', resolveOp, 'events', events)
redis.call('PEXPIRE', hashKey, retentionMs)
-- Each part is already JSON, so concatenation yields JSON without decoding anything here. Only what
-- changes while pending: a waiter already holds the inquiry as created (its question, its context).
local message = '{"resolution":' .. resolutionJson .. ',"suggested":' .. (f[4] or 'null') ..
  ',"votes":' .. (f[7] or 'null') .. ',"escalatedAt":' .. (f[8] or 'null') .. '}'
-- Sharded: the channel shares the inquiry's hash tag, so on a Cluster it is this slot's, and only
-- the nodes that wait on this inquiry are subscribed.
redis.call('SPUBLISH', channel, message)
