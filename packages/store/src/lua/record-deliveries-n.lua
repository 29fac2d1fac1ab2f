--[[
  Records what device sockets were handed (the ops timeline's device deliveries) in the inquiries'
  own hashes, so they live and expire with the inquiry: each hash keeps its newest ARGV[1] entries
  in a ring of fields `dlv:<seq mod ARGV[1]>`, and `dlv` is the sequence number the next entry gets
  (the create writes 1, see write-new.lua). A key that is no inquiry (expired, or never one) is left
  as it was: writing it would make a hash without a TTL.

  Input:
    KEYS[1..n] inquiry hashes      inq:{<id>}

    ARGV[1]    entries kept per inquiry (MAX_DEVICE_DELIVERIES)
    then, for each key in turn: its entry count c, then its c entries (JSON), oldest first

  Output: how many of the keys were inquiries (and got their entries)
]]
local keep = tonumber(ARGV[1])
local at = 2
local written = 0
for _, key in ipairs(KEYS) do
  local count = tonumber(ARGV[at])
  local first = redis.call('HINCRBY', key, 'dlv', count) - count
  if first == 0 then
    -- No `dlv` before this call: an inquiry created before deliveries lived in its hash (it gets
    -- its counter now), or no inquiry at all (the HINCRBY just made the key: drop it again).
    if redis.call('HEXISTS', key, 'inquiry') == 1 then
      redis.call('HINCRBY', key, 'dlv', 1)
      first = 1
    else
      redis.call('DEL', key)
    end
  end
  if first > 0 then
    local fields = {}
    -- A batch longer than the ring writes only its newest `keep`.
    for i = math.max(1, count - keep + 1), count do
      fields[#fields + 1] = 'dlv:' .. ((first + i - 1) % keep)
      fields[#fields + 1] = ARGV[at + i]
    end
    redis.call('HSET', key, unpack(fields))
    written = written + 1
  end
  at = at + count + 1
end
return written
