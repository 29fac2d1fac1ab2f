--[[
  Saves one push subscription of a user: updates the record of the same endpoint in place (its id
  and createdAt stay), or adds it under the new id; then drops the least recently saved records
  beyond the cap.

  Input:
    KEYS[1] the user's subscriptions hash  user:{u:<userId>}:push            id → JSON record
    KEYS[2] the user's order sorted set    user:{u:<userId>}:push:order      id scored by updatedAt
    KEYS[3] the user's endpoints hash      user:{u:<userId>}:push:endpoints  endpoint → id

    ARGV[1] endpoint
    ARGV[2] the id to use when the endpoint is new
    ARGV[3] the record, JSON, without id and createdAt
    ARGV[4] now (epoch ms): updatedAt, and createdAt of a new record
    ARGV[5] the cap (subscriptions per user)

  Output:
    {1, id, dropped id...}  added
    {0, id, dropped id...}  the endpoint's record updated
]]
local id = redis.call('HGET', KEYS[3], ARGV[1])
local created = 0
local createdAt = tonumber(ARGV[4])
if id then
  local old = redis.call('HGET', KEYS[1], id)
  if old then
    createdAt = cjson.decode(old)['createdAt'] or createdAt
  end
else
  id = ARGV[2]
  created = 1
end
local record = cjson.decode(ARGV[3])
record['id'] = id
record['createdAt'] = createdAt
record['updatedAt'] = tonumber(ARGV[4])
redis.call('HSET', KEYS[1], id, cjson.encode(record))
redis.call('HSET', KEYS[3], ARGV[1], id)
redis.call('ZADD', KEYS[2], ARGV[4], id)

local reply = {created, id}
local over = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[5])
if over > 0 then
  for _, gone in ipairs(redis.call('ZRANGE', KEYS[2], 0, over - 1)) do
    local json = redis.call('HGET', KEYS[1], gone)
    if json then
      redis.call('HDEL', KEYS[3], cjson.decode(json)['endpoint'])
    end
    redis.call('HDEL', KEYS[1], gone)
    redis.call('ZREM', KEYS[2], gone)
    table.insert(reply, gone)
  end
end
return reply
