--[[
  Claims an idempotency key for one caller, or reports who holds it.

  Input:
    KEYS[1] operation hash   hitl:proxy:op:{u:<user>}:<key>
    ARGV[1] digest of the call
    ARGV[2] state (awaiting_approval | in_progress)
    ARGV[3] owner token
    ARGV[4] lease, ms (the claim lapses after it unless finished)
    ARGV[5] now, epoch ms
    ARGV[6] driveUntil, epoch ms (until when the owner waits on it; a late approval may be adopted after)
    ARGV[7] the call as JSON ({name, arguments}), '' when not kept

  Output:
    {1}                                                                          claimed
    {0, digest, state, owner, grantId, inquiryId, result, updatedAt, driveUntil, call}  held already
]]
if redis.call('EXISTS', KEYS[1]) == 1 then
  return {0, unpack(redis.call('HMGET', KEYS[1], 'digest', 'state', 'owner', 'grantId', 'inquiryId', 'result', 'updatedAt', 'driveUntil', 'call'))}
end
redis.call('HSET', KEYS[1], 'digest', ARGV[1], 'state', ARGV[2], 'owner', ARGV[3], 'updatedAt', ARGV[5], 'driveUntil', ARGV[6])
if ARGV[7] ~= '' then
  redis.call('HSET', KEYS[1], 'call', ARGV[7])
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return {1}
