--[[
  Ends a pending inquiry: the first caller wins, every later one learns the winner's resolution.
  Writes the resolution, shortens both keys to the retention, publishes, appends an event: atomically.

  Input:
    KEYS[1] inquiry hash           inq:{<id>}
    KEYS[2] inquiry events stream  inq:{<id>}:events

    ARGV[1] terminal status (answered | refused | timed_out | cancelled)
    ARGV[2] resolution, JSON ({status, answer?, resolvedBy, resolvedAt})
    ARGV[3] retention, ms (TTL of both keys from now on)
    ARGV[4] pub/sub channel for resolutions
    ARGV[5] resolvedAt, epoch ms (event field)
    ARGV[6] this call's token (a re-sent command must not turn its own win into a loss)

  Output:
    {1, inquiry, status, resolution, suggested, votes, escalatedAt}
        won; the message {inquiry, resolution, suggested, votes, escalatedAt} (raw JSON values) went
        to ARGV[4]; a re-sent winning call gets this again, without a second publish
    {0, inquiry, status, resolution, suggested, votes, escalatedAt}
        lost: it had already ended; the stored fields
    {-1}                                         not found (never created, or expired)
]]
local f = redis.call('HMGET', KEYS[1], 'inquiry', 'status', 'resolution', 'suggested', 'votes', 'escalatedAt',
  'resolveOp')
if not f[1] then
  return {-1}
end
if f[2] ~= 'pending' then
  return {f[7] == ARGV[6] and 1 or 0, f[1], f[2], f[3], f[4], f[5], f[6]}
end

redis.call('HSET', KEYS[1], 'status', ARGV[1], 'resolution', ARGV[2], 'resolveOp', ARGV[6])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('XADD', KEYS[2], 'MAXLEN', '~', 64, '*', 'type', 'resolved', 'status', ARGV[1], 'at', ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
-- Each part is already JSON, so concatenation yields JSON without decoding anything here.
local message = '{"inquiry":' .. f[1] .. ',"resolution":' .. ARGV[2] .. ',"suggested":' .. (f[4] or 'null') ..
  ',"votes":' .. (f[5] or 'null') .. ',"escalatedAt":' .. (f[6] or 'null') .. '}'
redis.call('PUBLISH', ARGV[4], message)
return {1, f[1], ARGV[1], ARGV[2], f[4], f[5], f[6]}
