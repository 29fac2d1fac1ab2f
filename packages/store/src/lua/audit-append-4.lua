--[[
  Appends entries to the audit chain when its head is still the one the caller computed them from
  (compare-and-set: the node hashes, Redis's Lua has no SHA-256), each record once. Every key is under
  the one hash tag {audit}, so a Cluster keeps the chain in one slot.

  Input:
    KEYS[1] head     {audit}:head     string "<seq> <hash>" (absent: the empty chain)
    KEYS[2] entries  {audit}:entries  list: entry n at index n-1, JSON {seq, prevHash, hash, record}
    KEYS[3] ids      {audit}:ids      hash: record id -> seq
    KEYS[4] outbox   {audit}:outbox   hash: record id -> what the outbox keeps of it

    ARGV[1] the seq of the head the entries follow
    ARGV[2] that head's hash
    ARGV[3..] three per entry, in order: record id, hash, entry JSON

  Output:
    {1, seq, hash}    appended (each record's outbox entry dropped); the new head
    {-5, seq, hash}   the head moved: nothing written; the current head
    {-6, id}          that record is in the chain already: nothing written; its outbox entry dropped
]]
local head = redis.call('GET', KEYS[1])
local seq, hash = 0, string.rep('0', 64)
if head then
  local space = string.find(head, ' ', 1, true)
  seq, hash = tonumber(string.sub(head, 1, space - 1)), string.sub(head, space + 1)
end
if seq ~= tonumber(ARGV[1]) or hash ~= ARGV[2] then
  return {-5, tostring(seq), hash}
end
-- One entry (the usual case): HSETNX both checks and names it. Several: check them all first (nothing
-- written when one is in already), then one RPUSH, one HSET and one HDEL for all of them.
if #ARGV == 5 then
  if redis.call('HSETNX', KEYS[3], ARGV[3], seq + 1) == 0 then
    redis.call('HDEL', KEYS[4], ARGV[3])
    return {-6, ARGV[3]}
  end
  seq = seq + 1
  redis.call('RPUSH', KEYS[2], ARGV[5])
  redis.call('HDEL', KEYS[4], ARGV[3])
  hash = ARGV[4]
else
  for i = 3, #ARGV, 3 do
    if redis.call('HEXISTS', KEYS[3], ARGV[i]) == 1 then
      redis.call('HDEL', KEYS[4], ARGV[i])
      return {-6, ARGV[i]}
    end
  end
  local entries, ids, names = {}, {}, {}
  for i = 3, #ARGV, 3 do
    seq = seq + 1
    entries[#entries + 1] = ARGV[i + 2]
    ids[#ids + 1] = ARGV[i]
    ids[#ids + 1] = seq
    names[#names + 1] = ARGV[i]
    hash = ARGV[i + 1]
  end
  redis.call('RPUSH', KEYS[2], unpack(entries))
  redis.call('HSET', KEYS[3], unpack(ids))
  redis.call('HDEL', KEYS[4], unpack(names))
end
redis.call('SET', KEYS[1], string.format('%d', seq) .. ' ' .. hash)
return {1, string.format('%d', seq), hash}
