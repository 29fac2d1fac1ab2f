--[[
  Deletes one push subscription of a user, named by its id or by its endpoint.

  Input:
    KEYS[1] the user's subscriptions hash  user:{u:<userId>}:push
    KEYS[2] the user's order sorted set    user:{u:<userId>}:push:order
    KEYS[3] the user's endpoints hash      user:{u:<userId>}:push:endpoints

    ARGV[1] 'id' or 'endpoint': what ARGV[2] is
    ARGV[2] the id or the endpoint

  Output:
    {1, id}  deleted
    {0}      the user has no such subscription
]]
local id = ARGV[2]
if ARGV[1] == 'endpoint' then
  id = redis.call('HGET', KEYS[3], ARGV[2])
  if not id then
    return {0}
  end
end
local json = redis.call('HGET', KEYS[1], id)
if not json then
  return {0}
end
redis.call('HDEL', KEYS[3], cjson.decode(json)['endpoint'])
redis.call('HDEL', KEYS[1], id)
redis.call('ZREM', KEYS[2], id)
return {1, id}
