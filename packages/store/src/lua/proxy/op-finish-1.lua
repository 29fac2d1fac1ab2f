--[[
  Stores an operation's result for its owner, keeps it for the retention and wakes every waiter.

  Input:
    KEYS[1] operation hash   hitl:proxy:op:{u:<user>}:<key>
    ARGV[1] owner token
    ARGV[2] result, JSON
    ARGV[3] retention, ms
    ARGV[4] now, epoch ms
    ARGV[5] pub/sub channel for finished operations
    ARGV[6] message to publish (names the user and key)

  Output:
    {1}    stored and published
    {-1}   not found (the lease lapsed)
    {-6}   another owner holds it
]]
local owner = redis.call('HGET', KEYS[1], 'owner')
if not owner then
  return {-1}
end
if owner ~= ARGV[1] then
  return {-6}
end
redis.call('HSET', KEYS[1], 'state', 'done', 'result', ARGV[2], 'updatedAt', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PUBLISH', ARGV[5], ARGV[6])
return {1}
