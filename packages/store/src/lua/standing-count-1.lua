--[[
  Counts one use of a standing approval, if it is still there and live: an end (HDEL) or its
  `until` passing before this step means no use. The caller chose it by reading the hash first
  (matching arguments is done in the node); this step is what makes the use safe against an end.

  Input:
    KEYS[1] the asker's standing approvals hash   user:{u:<userId>}:standing   <id> → JSON, uses:<id> → count

    ARGV[1] the standing approval's id
    ARGV[2] now (epoch ms)

  Output:
    {1, uses}  counted; its uses now
    {-1}       gone (ended, or never there)
    {-4}       past its `until`
]]
local body = redis.call('HGET', KEYS[1], ARGV[1])
if not body then
  return {-1}
end
if tonumber(cjson.decode(body)['until']) <= tonumber(ARGV[2]) then
  return {-4}
end
return {1, redis.call('HINCRBY', KEYS[1], 'uses:' .. ARGV[1], 1)}
