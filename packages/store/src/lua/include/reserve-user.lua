-- The user's side of a create: the pending cap, then the user's two sets and the idempotency key.
-- The caller has set the locals `inquiryId`, `hasKey` and `again` (its reply when this call already
-- ran: ioredis re-sends a command whose reply a dropped connection lost, and the id is fresh per
-- call, so finding it among the user's ids means that), with KEYS[1..3] = idempotency key, the
-- user's pending ids, the user's ids, ARGV[2] = the cap (0: none) and ARGV[3] = the key's TTL (ms).
-- The user's ids are never trimmed of a live inquiry, so adding to them is also the check: no read.
local cap = tonumber(ARGV[2])
if cap > 0 then
  local count = redis.call('ZCARD', KEYS[2])
  if count >= cap then
    if redis.call('ZSCORE', KEYS[3], inquiryId) then
      return again
    end
    return {-3, count}
  end
end

if redis.call('ZADD', KEYS[3], 0, inquiryId) == 0 then
  return again
end
if hasKey then
  redis.call('SET', KEYS[1], inquiryId, 'PX', ARGV[3])
end
redis.call('ZADD', KEYS[2], 0, inquiryId)
