--[[
  Reads sets, hashes and counters in one atomic step, so a call never sees half of another call's commit. A script
  rather than a MULTI: a Redis over its maxmemory (noeviction) refuses every command queued in a MULTI, reads
  included, while it still runs a script that only reads.

  KEYS[1..s]       sets, read with SMEMBERS
  KEYS[s+1..s+h]   hashes, read with HGETALL
  KEYS[s+h+1..]    counters, read with GET
  ARGV[1]          s
  ARGV[2]          h

  Returns one reply per key, in KEYS' order (a counter that does not exist: false).
]]
local sets = tonumber(ARGV[1])
local hashes = tonumber(ARGV[2])
local out = {}
for i = 1, #KEYS do
  if i <= sets then
    out[i] = redis.call('SMEMBERS', KEYS[i])
  elseif i <= sets + hashes then
    out[i] = redis.call('HGETALL', KEYS[i])
  else
    out[i] = redis.call('GET', KEYS[i])
  end
end
return out
