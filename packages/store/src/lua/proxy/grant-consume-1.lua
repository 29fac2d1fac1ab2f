--[[
  Uses an approved grant for one call: only a call with the same digest, before expiry, once.
  The check and the state change are one step, so two callers can never both succeed.

  The same rule as consumeRule in src/store/grant-rules.ts (the memory and SQLite stores apply that
  one), kept here because the read and the move must be one atomic step in Redis; the store
  contract suite (test/store-contract.ts) runs on all three stores and proves they agree.

  Input:
    KEYS[1] grant hash   hitl:proxy:grant:{g:<grantId>}
    ARGV[1] digest of the call about to be forwarded
    ARGV[2] now, epoch ms

  Output:
    {1}            consumed: forward the call
    {-1}           not found
    {-5}           the digest differs (another user, backend, tool or arguments): left untouched
    {-2, state}    not approved (pending, rejected, used or expired); its state
    {-4}           expired just now; the grant is now 'expired'
]]
-- #include grant-expiry
local f = redis.call('HMGET', KEYS[1], 'state', 'expiresAt', 'digest')
if not f[1] then
  return {-1}
end
if f[3] ~= ARGV[1] then
  return {-5}
end
if f[1] ~= 'approved' then
  return {-2, f[1]}
end
if expireIfLate(KEYS[1], ARGV[2], f[2]) then
  return {-4}
end
redis.call('HSET', KEYS[1], 'state', 'used', 'usedAt', ARGV[2])
return {1}
