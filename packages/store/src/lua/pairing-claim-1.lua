--[[
  Claims a pairing: takes it away, whatever happens next, and hands it back only while it lives.
  One script, so of many claims of one code exactly one gets the pairing.

  Input:
    KEYS[1] the pairing   pairing:{p:<sha256 of the code>}   JSON record (PXAT its expiresAt)

    ARGV[1] now (epoch ms)

  Output:
    {1, json}  claimed: the record as stored
    {0}        no such pairing, or it had expired
]]
local json = redis.call('GET', KEYS[1])
if not json then
  return {0}
end
redis.call('DEL', KEYS[1])
if tonumber(cjson.decode(json)['expiresAt']) <= tonumber(ARGV[1]) then
  return {0}
end
return {1, json}
