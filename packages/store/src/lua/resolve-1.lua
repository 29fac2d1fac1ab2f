--[[
  Ends a pending inquiry: the first caller wins, every later one learns the winner's resolution.
  Writes the resolution, appends to the event log, shortens the hash to the retention, publishes:
  atomically. (On a Redis Cluster; on one Redis, resolve-at-once-5.lua also drops the indexes.)

  Input:
    KEYS[1] inquiry hash           inq:{<id>}

    ARGV[1] terminal status (answered | refused | timed_out | cancelled)
    ARGV[2] resolution, JSON ({status, answer?, resolvedBy, resolvedAt})
    ARGV[3] retention, ms (the hash's TTL from now on)
    ARGV[4] sharded pub/sub channel of this inquiry's resolution (resolved:{<id>})
    ARGV[5] resolvedAt, epoch ms (event log)
    ARGV[6] this call's token (a re-sent command must not turn its own win into a loss)

  Output:
    {1, inquiry, status, resolution, suggested, votes, escalatedAt}
        won; the message {resolution, suggested, votes, escalatedAt} (raw JSON values) went to
        ARGV[4] (SPUBLISH); a re-sent winning call gets this again, without a second publish
    {0, inquiry, status, resolution, suggested, votes, escalatedAt}
        lost: it had already ended; the stored fields
    {-1}                                         not found (never created, or expired)
]]
local hashKey, status, resolutionJson, retentionMs, channel, resolvedAt, resolveOp =
  KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
-- #include end-pending
return {1, f[1], status, resolutionJson, f[4], f[7], f[8]}
