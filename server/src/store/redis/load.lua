--[[
  Reads documents, and optionally hashes and ranges of sorted sets, in one atomic step, so a call never sees half of
  another call's commit.

  KEYS[1..n]       document hashes
  KEYS[n+1..n+h]   hashes read whole (a plan's step briefs)
  KEYS[n+h+1..]    per range read, two keys: the sorted set, and the hash its members' values come from (the sorted
                   set again when it names none)
  KEYS[#KEYS-g+1..] g string keys read with GET, last: a request's remembered answer (in the workspace's slot,
                   read with the call's documents instead of in a round trip of its own), then the store's epoch
                   (read with the data, so a wiped store is noticed at no extra round trip; only on a single Redis,
                   where a script may touch keys of any slot)
  ARGV[1]          n, the number of document keys (all keys are documents when absent)
  ARGV[2]          h, the number of whole hashes (0 when absent)
  ARGV[3]          g, the number of string keys read with GET at the end (0 when absent)
  ARGV[4..]        per range read: whether it reads values (1 or 0), its number of ranges r, then r times min, max,
                   limit
  then (optional)  f, the number of follow reads; when f > 0, the documents' key prefix, then per follow read: the
                   position of its hash among the whole hashes (1..h), its number of patterns p, then p patterns,
                   each a JSON array of literal text and 0-based indexes into a field's JSON array of strings. The
                   documents it names share the workspace's hash tag, so they are in the declared keys' slot.

  Returns a flat array { v1, d1, v2, d2, ..., h1, h2, ..., z1, z2, ..., f1, f2, ..., epoch }: each document's
  version and JSON (nil for a missing document), each hash as its HGETALL reply (field, value, ...), then per range
  read one array per range: { count, member, score, value, member, score, value, ... } (value false when not read or
  absent), then per follow read one array { key, version, json, key, version, json, ... } (false for what is
  missing; a field that is not a JSON array of strings names nothing), then each string key's value (false when
  there is none).
]]
local docs = tonumber(ARGV[1]) or #KEYS
local hashes = tonumber(ARGV[2]) or 0
local gets = tonumber(ARGV[3]) or 0
local last = #KEYS - gets
local out = {}
for i = 1, docs do
  local fields = redis.call('HMGET', KEYS[i], 'v', 'd')
  out[2 * i - 1] = fields[1]
  out[2 * i] = fields[2]
end
local whole = {}
for i = docs + 1, docs + hashes do
  whole[i - docs] = redis.call('HGETALL', KEYS[i])
  out[docs + i] = whole[i - docs]
end
local arg = 4
local key = docs + hashes + 1
while key < last do
  local zset, source = KEYS[key], KEYS[key + 1]
  local with_values = ARGV[arg] == '1'
  local ranges = tonumber(ARGV[arg + 1])
  arg = arg + 2
  key = key + 2
  for _ = 1, ranges do
    local min, max, limit = ARGV[arg], ARGV[arg + 1], ARGV[arg + 2]
    arg = arg + 3
    local slice = { redis.call('ZCOUNT', zset, min, max) }
    -- A range counted only (limit 0: a step change counts the ended steps, names none) needs no second call.
    local first = {}
    if slice[1] > 0 and tonumber(limit) > 0 then
      first = redis.call('ZRANGEBYSCORE', zset, min, max, 'WITHSCORES', 'LIMIT', 0, limit)
    end
    local values = {}
    if with_values and #first > 0 then
      local members = {}
      for i = 1, #first, 2 do
        members[#members + 1] = first[i]
      end
      -- In slices: Lua's unpack refuses 8,000 values or more.
      for from = 1, #members, 1000 do
        local got = redis.call('HMGET', source, unpack(members, from, math.min(from + 999, #members)))
        for _, v in ipairs(got) do
          values[#values + 1] = v
        end
      end
    end
    for i = 1, #first, 2 do
      slice[#slice + 1] = first[i]
      slice[#slice + 1] = first[i + 1]
      slice[#slice + 1] = values[(i + 1) / 2] or false
    end
    out[#out + 1] = slice
  end
end
-- The document key a pattern names for a field's parts, or nil when a part it names is not a string.
local function key_of(pattern, parts)
  local key = ''
  for _, part in ipairs(pattern) do
    if type(part) == 'number' then
      local value = parts[part + 1]
      if type(value) ~= 'string' then
        return nil
      end
      key = key .. value
    else
      key = key .. part
    end
  end
  return key
end
local follows = tonumber(ARGV[arg]) or 0
if follows > 0 then
  local prefix = ARGV[arg + 1]
  arg = arg + 2
  for _ = 1, follows do
    local reply = whole[tonumber(ARGV[arg])] or {}
    local patterns = {}
    for j = 1, tonumber(ARGV[arg + 1]) do
      patterns[j] = cjson.decode(ARGV[arg + 1 + j])
    end
    arg = arg + 2 + #patterns
    local found = {}
    for i = 1, #reply, 2 do
      local ok, parts = pcall(cjson.decode, reply[i])
      if ok and type(parts) == 'table' then
        for _, pattern in ipairs(patterns) do
          local key = key_of(pattern, parts)
          if key then
            local fields = redis.call('HMGET', prefix .. key, 'v', 'd')
            found[#found + 1] = key
            found[#found + 1] = fields[1] or false
            found[#found + 1] = fields[2] or false
          end
        end
      end
    end
    out[#out + 1] = found
  end
end
for i = last + 1, #KEYS do
  out[#out + 1] = redis.call('GET', KEYS[i]) or false
end
return out
