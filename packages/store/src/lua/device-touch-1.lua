--[[
  Records a sighting of a device token (the rule of `touched` in devices/devices.ts): a new jti gets
  the given record; a known one moves lastSeenAt forward (never back) and takes the name only when
  the device named itself.

  Input:
    KEYS[1] the user's devices hash   user:{u:<userId>}:devices   jti → JSON record

    ARGV[1] jti
    ARGV[2] the record for a new jti, JSON (createdAt = lastSeenAt = now)
    ARGV[3] '1' when the device named itself (an existing record takes the name), else '0'
    ARGV[4] now (epoch ms)
    ARGV[5] the name

  Output:
    {1, json}  created
    {0, json}  updated
]]
local old = redis.call('HGET', KEYS[1], ARGV[1])
if not old then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  return {1, ARGV[2]}
end
local record = cjson.decode(old)
local now = tonumber(ARGV[4])
if tonumber(record['lastSeenAt']) < now then
  record['lastSeenAt'] = now
end
if ARGV[3] == '1' then
  record['deviceName'] = ARGV[5]
end
local json = cjson.encode(record)
redis.call('HSET', KEYS[1], ARGV[1], json)
return {0, json}
