--[[
  Records the human's verdict on a pending grant, once. A verdict that arrives after the grant's
  expiry expires it instead, so a late "approve" can never execute anything.

  The same rule as decideRule in src/store/grant-rules.ts (the memory and SQLite stores apply that
  one), kept here because the read and the move must be one atomic step in Redis; the store
  contract suite (test/store-contract.ts) runs on all three stores and proves they agree.

  Input:
    KEYS[1] grant hash   hitl:proxy:grant:{g:<grantId>}
    ARGV[1] verdict      approved | rejected
    ARGV[2] now, epoch ms
    ARGV[3] an approval of edited arguments: the digest of the approved call, bound from now on; '' keeps it

  Output:
    {1}            recorded
    {-1}           not found (never created, or forgotten)
    {-2, state}    not pending any more; its state
    {-4}           expired (now past expiresAt); the grant is now 'expired'
]]
-- #include grant-expiry
local f = redis.call('HMGET', KEYS[1], 'state', 'expiresAt')
if not f[1] then
  return {-1}
end
if f[1] ~= 'pending' then
  return {-2, f[1]}
end
if expireIfLate(KEYS[1], ARGV[2], f[2]) then
  return {-4}
end
redis.call('HSET', KEYS[1], 'state', ARGV[1], 'decidedAt', ARGV[2])
if ARGV[3] ~= '' then
  redis.call('HSET', KEYS[1], 'digest', ARGV[3])
end
return {1}
