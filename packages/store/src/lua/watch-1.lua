--[[
  Reads an inquiry for a node that is about to wait on it and, while it is pending, lists the node
  among its waiters (so the resolving script publishes the end to that node's channel): both in one
  step, so a resolution either shows in this read or reaches the node's channel.

  Input:
    KEYS[1] inquiry hash  inq:{<id>}

    ARGV[1] the waiting node's tag
    ARGV[2] tags kept at most (keys.ts MAX_WAITER_TAGS): past that the oldest is dropped

  Output:
    {1, inquiry, status, resolution, suggested, votes, escalatedAt}
    {-1}  not found
]]
local f = redis.call('HMGET', KEYS[1], 'inquiry', 'status', 'resolution', 'suggested', 'votes', 'escalatedAt',
  'waiters')
if not f[1] then
  return {-1}
end
if f[2] == 'pending' then
  local tags = {}
  for tag in string.gmatch(f[7] or '', '[^,]+') do
    if tag ~= ARGV[1] then
      tags[#tags + 1] = tag
    end
  end
  local keep = tonumber(ARGV[2])
  while #tags >= keep do
    table.remove(tags, 1)
  end
  tags[#tags + 1] = ARGV[1]
  redis.call('HSET', KEYS[1], 'waiters', table.concat(tags, ','))
end
return {1, f[1], f[2], f[3], f[4], f[5], f[6]}
