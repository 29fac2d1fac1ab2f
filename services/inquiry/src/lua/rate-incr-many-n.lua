--[[
  rate-incr-1 for several keys in one call: a flush's pending points on one Redis (one command
  sent, each key's window stepped in turn).

  Input:
    KEYS    the windows   hitl:rate:<key>   as in rate-incr-1

    ARGV[1] now (epoch ms, the node's clock)
    ARGV[2] the window's length (ms)
    ARGV[3…] the points to add per key, in KEYS' order

  Output:
    {count, end, count, end, …}  per key, in KEYS' order, as rate-incr-1's reply
]]
-- #include rate-spend

local now, windowMs = tonumber(ARGV[1]), tonumber(ARGV[2])
local replies = {}
for i, key in ipairs(KEYS) do
  local reply = spend(key, now, tonumber(ARGV[i + 2]), windowMs)
  replies[#replies + 1] = reply[1]
  replies[#replies + 1] = reply[2]
end
return replies
