-- Writes a new inquiry's hash and its TTL. The caller has set the locals:
--   hashKey, inquiryJson, ttlMs, suggestedJson ('' for none), createdAt, createOp (false: none),
--   waiterTag (the creating node's tag: it is about to wait on the inquiry)
-- `events` is the inquiry's event log, appended to by the resolve (end-pending.lua); `dlv` numbers the
-- device deliveries recorded in the hash (record-deliveries-n.lua), 1 for the first.
local fields = {'inquiry', inquiryJson, 'status', 'pending', 'events', 'created ' .. createdAt, 'waiters', waiterTag,
  'dlv', '1'}
if createOp then
  fields[#fields + 1] = 'createOp'
  fields[#fields + 1] = createOp
end
if suggestedJson ~= '' then
  fields[#fields + 1] = 'suggested'
  fields[#fields + 1] = suggestedJson
end
redis.call('HSET', hashKey, unpack(fields))
redis.call('PEXPIRE', hashKey, ttlMs)
