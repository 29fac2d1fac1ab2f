--[[
  Attaches (or clears) the suggested answer of an inquiry that is still pending.

  Input:
    KEYS[1] inquiry hash  inq:{<id>}

    ARGV[1] suggested answer, JSON, or '' to clear it

  Output:
    {1}   written
    {-2}  not pending any more; nothing written
    {-1}  not found (never created, or expired)
]]
local status = redis.call('HGET', KEYS[1], 'status')
if not status then
  return {-1}
end
if status ~= 'pending' then
  return {-2}
end
if ARGV[1] == '' then
  redis.call('HDEL', KEYS[1], 'suggested')
else
  redis.call('HSET', KEYS[1], 'suggested', ARGV[1])
end
return {1}
