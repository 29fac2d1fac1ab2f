--[[
  Records a verified passkey use: the signature counter moves on only if it goes up (or both are 0,
  an authenticator that keeps none); otherwise it is a cloned authenticator or a replay.

  Input:
    KEYS[1] the user's passkeys  user:{u:<userId>}:passkeys  hash: <id> -> JSON, <id>:counter, <id>:used

    ARGV[1] credential id
    ARGV[2] the counter the assertion carries
    ARGV[3] when, epoch ms

  Output:
    1   used (counter and last use written)
    -1  no such passkey for this user
    -2  the counter did not go up: nothing written
]]
local stored = redis.call('HGET', KEYS[1], ARGV[1] .. ':counter')
if not stored then
  return -1
end
local was, now = tonumber(stored), tonumber(ARGV[2])
if not ((was == 0 and now == 0) or now > was) then
  return -2
end
redis.call('HSET', KEYS[1], ARGV[1] .. ':counter', ARGV[2], ARGV[1] .. ':used', ARGV[3])
return 1
