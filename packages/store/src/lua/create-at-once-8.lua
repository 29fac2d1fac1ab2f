--[[
  All of create in one step, on one Redis (not a Cluster: the keys span slots): the idempotency key,
  the pending cap, the user's sets, the hash, the global indexes and the reference of the MCP call
  that will wait on it.

  Input:
    KEYS[1] idempotency key        user:{u:<userId>}:idem:<key>  (untouched when ARGV[4] is '0')
    KEYS[2] user's pending ids     sorted set, score 0
    KEYS[3] user's ids             sorted set, score 0
    KEYS[4] inquiry hash           inq:{<id>}
    KEYS[5] deadlines              sorted set, score = service deadline (the id's shard, {s<n>})
    KEYS[6] all pending ids        sorted set, score 0 (the id's shard)
    KEYS[7] all ids                sorted set, score 0
    KEYS[8] call reference         call:<call key>  (untouched when ARGV[10] is '0')

    ARGV[1] the new inquiry id (fresh per call: nobody else writes it)
    ARGV[2] pending inquiries the user may hold (0: no cap)
    ARGV[3] TTL of the hash and the key, ms (service deadline + retention)
    ARGV[4] '1' when the caller sent an idempotency key, else '0'
    ARGV[5] the inquiry as created, JSON (no status, no suggested answer)
    ARGV[6] suggested answer, JSON, or '' for none
    ARGV[7] createdAt, epoch ms (event log)
    ARGV[8] service deadline, epoch ms
    ARGV[9] the creating node's tag (the inquiry's first `waiters` entry)
    ARGV[10] the call reference's TTL, ms ('0': no call to remember), for a cancel on another node

  Output:
    {1}          created; also when it already was by this call (ioredis re-sends a command whose
                 reply a dropped connection lost: the id is this call's own, so finding it in the
                 key or the user's ids means that)
    {0, id}      the idempotency key already names inquiry `id` (another id); nothing written
    {-3, count}  over the cap: the user holds `count` pending ids; nothing written
]]
local inquiryId = ARGV[1]
local hasKey = ARGV[4] == '1'
if hasKey then
  local existing = redis.call('GET', KEYS[1])
  if existing then
    return {existing == inquiryId and 1 or 0, existing}
  end
end
-- A re-sent call finds its id among the user's ids (reserve-user): `again`, nothing written.
local again = {1}
-- #include reserve-user
local hashKey, inquiryJson, ttlMs, suggestedJson, createdAt, createOp, waiterTag =
  KEYS[4], ARGV[5], ARGV[3], ARGV[6], ARGV[7], false, ARGV[9]
-- #include write-new
redis.call('ZADD', KEYS[5], ARGV[8], inquiryId)
redis.call('ZADD', KEYS[6], 0, inquiryId)
redis.call('ZADD', KEYS[7], 0, inquiryId)
if ARGV[10] ~= '0' then
  redis.call('SET', KEYS[8], inquiryId, 'PX', ARGV[10])
end
return {1}
