-- Adds `points` to the fixed window at `key` (a hash: count, end) and returns {count, end}. The
-- window is timed on the caller's clock: one whose end has come starts afresh with these points, and
-- Redis's own expiry (PEXPIRE, set when it starts) only clears it away. Negative points (a refund)
-- never start a window: {0, now} when there is none.
local function spend(key, now, points, windowMs)
  local ends = tonumber(redis.call('hget', key, 'end'))
  if ends and ends > now then
    return {redis.call('hincrby', key, 'count', points), ends}
  end
  if points < 0 then
    return {0, now}
  end
  ends = now + windowMs
  redis.call('hset', key, 'count', points, 'end', ends)
  redis.call('pexpire', key, windowMs)
  return {points, ends}
end
