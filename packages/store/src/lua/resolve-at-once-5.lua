--[[
  resolve-1.lua and its clean-up in one step, on one Redis (not a Cluster: the keys span slots):
  when this call wins, the id also leaves the asker's pending set, the deadlines and the global
  pending set, and the idempotency key is shortened to the hash's new TTL (if it still names the id).

  Input:
    KEYS[1] inquiry hash           inq:{<id>}
    KEYS[2] asker's pending ids    user:{u:<userId>}:pending   (untouched when ARGV[9] is '0')
    KEYS[3] idempotency key        user:{u:<userId>}:idem:<key> (untouched unless ARGV[8] is '1')
    KEYS[4] deadlines              sorted set, the id's shard (deadlines:{s<n>})
    KEYS[5] all pending ids        sorted set, the id's shard (pending:{s<n>})

    ARGV[1..6] as resolve-1.lua (status, resolution JSON, retention ms, node channels' prefix,
            resolvedAt, token)
    ARGV[7] the inquiry id
    ARGV[8] '1' when the inquiry has an idempotency key, else '0'
    ARGV[9] '1' when KEYS[2] and KEYS[3] are the inquiry's asker's (the caller knew the asker), else
            '0': the caller drops the id from the user's set itself (release-2.lua)
    ARGV[10] the resolving node's tag
    ARGV[11] a user the inquiry must be addressed to, else it reads as not found ('' for no check)
    ARGV[12], ARGV[13] the audit record's id ('' for none) and JSON, as resolve-1.lua

  Output: as resolve-1.lua, except that a win has already published the message (SPUBLISH) to each
  waiting node's channel but the resolver's own (one Redis: no slot rules).
]]
local hashKey, status, resolutionJson, retentionMs, nodeChannelPrefix, resolvedAt, resolveOp =
  KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local inquiryId, ownTag, publishHere, addressedTo = ARGV[7], ARGV[10], true, ARGV[11] ~= '' and ARGV[11]
local auditId, auditJson = ARGV[12] or '', ARGV[13]
-- #include end-pending
if ARGV[9] == '1' then
  redis.call('ZREM', KEYS[2], inquiryId)
  if ARGV[8] == '1' and redis.call('GET', KEYS[3]) == inquiryId then
    -- The hash's own expiry time, not `retentionMs` from now again: a script's clock may tick between
    -- two PEXPIREs, and the key must never outlive the hash.
    redis.call('PEXPIREAT', KEYS[3], redis.call('PEXPIRETIME', hashKey))
  end
end
redis.call('ZREM', KEYS[4], inquiryId)
redis.call('ZREM', KEYS[5], inquiryId)
return won
