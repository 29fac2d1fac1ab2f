--[[
  After a resolution, on the user's slot: drops the id from the user's pending set and lets the
  idempotency key expire no later than the inquiry's hash (so the key never names a vanished inquiry).

  Input:
    KEYS[1] user's pending ids  sorted set
    KEYS[2] idempotency key     (untouched when ARGV[3] is '0')

    ARGV[1] inquiry id
    ARGV[2] idempotency key TTL, ms
    ARGV[3] '1' when the inquiry has an idempotency key, else '0'

  Output:
    {1}  done (also when the id was already gone)
]]
redis.call('ZREM', KEYS[1], ARGV[1])
if ARGV[3] == '1' and redis.call('GET', KEYS[2]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
end
return {1}
