-- The first-answer-wins step: ends the inquiry if it is pending, else returns (lost / not found).
-- The caller has set the locals:
--   hashKey, status, resolutionJson, retentionMs, resolvedAt, resolveOp,
--   inquiryId, nodeChannelPrefix, ownTag (the resolving node's tag: its waiters wake from the reply),
--   addressedTo (false, or a user: an inquiry not addressed to that user reads as not found, as the
--   service's own read before a resolve would have it: the answering device's user, whose node skipped
--   that read),
--   publishHere (true on one Redis: publish to the waiting nodes' channels from here; false on a
--   Cluster, where those channels live in other slots and the caller publishes `message` itself),
--   auditId, auditJson (the decision's audit record, '' for none: written as the field
--   `audit:<id>` of the hash when this call ends it, the chain's outbox entry beside the decision)
-- and reads `f` (the stored fields before the write: inquiry, status, resolution, suggested, resolveOp,
-- events, votes, escalatedAt, waiters) and `won` (the winning reply) after it; a lost reply lists
-- them as {code, f[1..4], f[7], f[8]}.
local f = redis.call('HMGET', hashKey, 'inquiry', 'status', 'resolution', 'suggested', 'resolveOp', 'events', 'votes',
  'escalatedAt', 'waiters')
if not f[1] then
  return {-1}
end
if addressedTo then
  -- audienceOf in @hitl/protocol: the audience (else the asker's user), plus the escalation's users
  -- once it escalated (`escalatedAt`).
  local created = cjson.decode(f[1])
  local addressed = false
  for _, userId in ipairs(created.audience or {created.userId}) do
    if userId == addressedTo then addressed = true end
  end
  if not addressed and f[8] and created.escalation then
    for _, userId in ipairs(created.escalation.users) do
      if userId == addressedTo then addressed = true end
    end
  end
  if not addressed then
    return {-1}
  end
end

-- The resolution message: the id, a space, then only what changes while pending (a waiter already
-- holds the inquiry as created). Each part is already JSON, so concatenation yields JSON without
-- decoding anything here.
local function messageOf(resolution, suggested, votes, escalatedAt)
  return inquiryId .. ' {"resolution":' .. resolution .. ',"suggested":' .. (suggested or 'null') ..
    ',"votes":' .. (votes or 'null') .. ',"escalatedAt":' .. (escalatedAt or 'null') .. '}'
end

if f[2] ~= 'pending' then
  if f[5] == resolveOp then
    -- This call's own win, re-sent by the client after a lost reply: the same reply again (on a
    -- Cluster the caller never published: it publishes now; on one Redis the first run did).
    return {1, f[1], f[2], f[3], f[4], f[7], f[8], f[9] or '', messageOf(f[3], f[4], f[7], f[8])}
  end
  return {0, f[1], f[2], f[3], f[4], f[7], f[8]}
end

local events = (f[6] or '') .. ';resolved ' .. status .. ' ' .. resolvedAt
if auditId ~= '' then
  redis.call('HSET', hashKey, 'status', status, 'resolution', resolutionJson, 'resolveOp', resolveOp, 'events', events,
    'audit:' .. auditId, auditJson)
else
  redis.call('HSET', hashKey, 'status', status, 'resolution', resolutionJson, 'resolveOp', resolveOp, 'events', events)
end
redis.call('PEXPIRE', hashKey, retentionMs)
local message = messageOf(resolutionJson, f[4], f[7], f[8])
if publishHere and f[9] then
  for tag in string.gmatch(f[9], '[^,]+') do
    if tag ~= ownTag then
      redis.call('SPUBLISH', nodeChannelPrefix .. '{n:' .. tag .. '}', message)
    end
  end
end
local won = {1, f[1], status, resolutionJson, f[4], f[7], f[8], f[9] or '', message}
