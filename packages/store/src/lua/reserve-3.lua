--[[
  Reserves an inquiry id for a user: idempotency key and pending cap, checked and written in one step.
  (Step 1 of create; the inquiry's own keys live in another slot, see create-2.lua.)

  Input:
    KEYS[1] idempotency key        user:{u:<userId>}:idem:<key>  (untouched when ARGV[4] is '0')
    KEYS[2] user's pending ids     sorted set, score 0
    KEYS[3] user's ids             sorted set, score 0

    ARGV[1] the new inquiry id
    ARGV[2] pending inquiries the user may hold (0: no cap)
    ARGV[3] idempotency key TTL, ms (service deadline + retention)
    ARGV[4] '1' when the caller sent an idempotency key, else '0'

  Output:
    {1, id}      reserved: the new id is in the user's sets (and named by the key); also when it
                 already was (ioredis re-sends a command whose reply a dropped connection lost)
    {0, id}      the idempotency key already names inquiry `id`; nothing written
    {-3, count}  over the cap: the user holds `count` pending ids; nothing written
]]
local hasKey = ARGV[4] == '1'
if hasKey then
  local existing = redis.call('GET', KEYS[1])
  if existing then
    return {0, existing}
  end
end

local inquiryId = ARGV[1]
local again = {1, inquiryId}
-- #include reserve-user
return {1, ARGV[1]}
