--[[
  Moves an unfinished operation along, only for its owner.

  Input:
    KEYS[1] operation hash   hitl:proxy:op:{u:<user>}:<key>
    ARGV[1] owner token
    ARGV[2] state (awaiting_approval | in_progress)
    ARGV[3] now, epoch ms
    ARGV[4] inquiry id ('' keeps the stored one)
    ARGV[5] grant id ('' keeps the stored one)
    ARGV[6] driveUntil, epoch ms ('' keeps the stored one; 0 parks it for whoever collects it)

  Output:
    {1}    updated
    {-1}   not found (the lease lapsed)
    {-6}   another owner holds it, or it is done
]]
local f = redis.call('HMGET', KEYS[1], 'owner', 'state')
if not f[1] then
  return {-1}
end
if f[1] ~= ARGV[1] or f[2] == 'done' then
  return {-6}
end
redis.call('HSET', KEYS[1], 'state', ARGV[2], 'updatedAt', ARGV[3])
if ARGV[4] ~= '' then
  redis.call('HSET', KEYS[1], 'inquiryId', ARGV[4])
end
if ARGV[5] ~= '' then
  redis.call('HSET', KEYS[1], 'grantId', ARGV[5])
end
if ARGV[6] ~= '' then
  redis.call('HSET', KEYS[1], 'driveUntil', ARGV[6])
end
return {1}
