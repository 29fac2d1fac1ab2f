--[[
  Hands an operation that waits for a late approval to a new owner: only while it still awaits the
  approval and nobody drives it (parked at the end of a hold, or its driver's time ran out), so at most
  one caller waits on the human and settles the grant at a time.

  Input:
    KEYS[1] operation hash   hitl:proxy:op:{u:<user>}:<key>
    ARGV[1] the new owner token
    ARGV[2] driveUntil, epoch ms (the new owner's time to wait on it)
    ARGV[3] now, epoch ms

  Output:
    {1}            adopted
    {-1}           not found
    {-2}           not adoptable (done, running, or someone else drives it)
]]
local f = redis.call('HMGET', KEYS[1], 'state', 'driveUntil')
if not f[1] then
  return {-1}
end
if f[1] ~= 'awaiting_approval' or not f[2] or tonumber(f[2]) > tonumber(ARGV[3]) then
  return {-2}
end
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'driveUntil', ARGV[2], 'updatedAt', ARGV[3])
return {1}
