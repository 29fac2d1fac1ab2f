--[[
  Ends a pending inquiry: the first caller wins, every later one learns the winner's resolution.
  Writes the resolution, appends to the event log, shortens the hash to the retention: atomically. (On a Redis Cluster; on one Redis, resolve-at-once-5.lua also drops the indexes.)

  Input:
    KEYS[1] inquiry hash           inq:{<id>}

    ARGV[1] terminal status (answered | refused | timed_out | cancelled)
    ARGV[2] resolution, JSON ({status, answer?, resolvedBy, resolvedAt})
    ARGV[3] retention, ms (the hash's TTL from now on)
    ARGV[4] the node channels' prefix (keys.ts nodeChannelPrefix)
    ARGV[5] resolvedAt, epoch ms (event log)
    ARGV[6] this call's token (a re-sent command must not turn its own win into a loss)
    ARGV[7] the inquiry id
    ARGV[8] the resolving node's tag
    ARGV[9] a user the inquiry must be addressed to, else it reads as not found ('' for no check)
    ARGV[10] the audit record's id ('' for none), written as the hash field `audit:<id>` on a win
    ARGV[11] the audit record, JSON

  Output:
    {1, inquiry, status, resolution, suggested, votes, escalatedAt, waiters, message}
        won; nothing published (the node channels are in other slots): the caller publishes
        `message` (`<id> {resolution, suggested, votes, escalatedAt}`) to each tag in `waiters` but
        its own; a re-sent winning call gets this again
    {0, inquiry, status, resolution, suggested, votes, escalatedAt}
        lost: it had already ended; the stored fields
    {-1}                                         not found (never created, or expired)
]]
local hashKey, status, resolutionJson, retentionMs, nodeChannelPrefix, resolvedAt, resolveOp =
  KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local inquiryId, ownTag, publishHere, addressedTo = ARGV[7], ARGV[8], false, ARGV[9] ~= '' and ARGV[9]
local auditId, auditJson = ARGV[10] or '', ARGV[11]
-- #include end-pending
return won
