--[[
  A deadline sweep's read of every shard of a time-scored index in one step (one Redis: the shards
  live in different slots, so a Cluster reads them one by one instead): each key's earliest members
  scored at or before ARGV[1], at most ARGV[2] of them.

  Input:
    KEYS[1..n] the index's shards      <kind>:{s<n>}, then the unsharded key of earlier versions

    ARGV[1]    now, epoch ms (the highest score wanted)
    ARGV[2]    members wanted per key

  Output: one list per key, in KEYS order: member, score, member, score, ...
]]
local lists = {}
for i, key in ipairs(KEYS) do
  lists[i] = redis.call('ZRANGEBYSCORE', key, '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0, ARGV[2])
end
return lists
