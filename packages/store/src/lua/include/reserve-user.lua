-- The user's side of a create: the pending cap, then the idempotency key and the user's two sets.
-- The caller has set the locals `inquiryId` and `hasKey`, with KEYS[1..3] = idempotency key, the
-- user's pending ids, the user's ids, ARGV[2] = the cap (0: none) and ARGV[3] = the key's TTL (ms).
local cap = tonumber(ARGV[2])
if cap > 0 then
  local count = redis.call('ZCARD', KEYS[2])
  if count >= cap then
    return {-3, count}
  end
end

if hasKey then
  redis.call('SET', KEYS[1], inquiryId, 'PX', ARGV[3])
end
redis.call('ZADD', KEYS[2], 0, inquiryId)
redis.call('ZADD', KEYS[3], 0, inquiryId)
