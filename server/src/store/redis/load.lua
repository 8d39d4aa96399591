--[[
  Reads documents, and optionally hashes, in one atomic step, so a call never sees half of another call's commit.

  KEYS[1..n]     document hashes
  KEYS[n+1..]    hashes read whole (a plan's step briefs), when ARGV[1] gives n
  ARGV[1]        n, the number of document keys (all keys are documents when absent)

  Returns a flat array { v1, d1, v2, d2, ..., h1, h2, ... }: each document's version and JSON (nil for a missing
  document), then each hash as its HGETALL reply (field, value, ...).
]]
local docs = tonumber(ARGV[1]) or #KEYS
local out = {}
for i = 1, docs do
  local fields = redis.call('HMGET', KEYS[i], 'v', 'd')
  out[2 * i - 1] = fields[1]
  out[2 * i] = fields[2]
end
for i = docs + 1, #KEYS do
  out[docs + i] = redis.call('HGETALL', KEYS[i])
end
return out
