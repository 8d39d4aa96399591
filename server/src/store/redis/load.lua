--[[
  Reads documents in one atomic step, so a call never sees half of another call's commit.

  KEYS[1..n]  document hashes
  ARGV        none

  Returns a flat array { v1, d1, v2, d2, ... }: each document's version and JSON, nil for a missing document.
]]
local out = {}
for i, key in ipairs(KEYS) do
  local fields = redis.call('HMGET', key, 'v', 'd')
  out[2 * i - 1] = fields[1]
  out[2 * i] = fields[2]
end
return out
