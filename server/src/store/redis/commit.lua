--[[
  Applies one call atomically: checks what it read, remembers the request, writes the documents, applies the
  commutative operations and the fan-ins, appends the events to the workspace log and publishes them. Either all of
  it happens or none of it (every check runs before the first write).

  KEYS     every key the commit touches (declared for Redis Cluster; all share the workspace's hash tag): KEYS[1]
           the workspace's event log, KEYS[2] its stored-byte counter, KEYS[3] the newest event id its retention
           trimmed, then the others, each named below by its index in KEYS (a `key`)
  ARGV[1]  the commit as JSON (built by redis-commit.ts):
           { channel (the workspace's sharded channel), workspace, retention, quota or absent,
             request = { key, ttl, answer (an ARGV index) [, index key, keep, request_id, key prefix (text)] }
                       or absent (with an index: at most `keep` answers per agent, the oldest forgotten first),
             reads = { { key, version } }, writes = { { key, ARGV index of the JSON, or 0 to delete } },
             ops = { op }, fanins = { fanin }, events = { ARGV index of the event's JSON } }
           op:    { 'sadd', key, { member } [, max] } | { 'srem', key, { member } }
                  | { 'hset' | 'hsetnx', key, { field, value, ... } }
                  | { 'hdel', key, { field } } | { 'incr', key, by } | { 'zadd', key, { score, member, ... } }
                  | { 'zrem', key, { member } } | { 'del', key }
                  | { 'bump', key } (a document's version moves, its `d` stays as it is or absent)
           fanin: { set key, member, record = { hash key, { field, value, ... } } or absent,
                    reads, writes, ops, events,
                    fills = { { token_json, hash key, 'object' | 'keys' [, cap] } },
                    answer = { token_json, value_json } or false }
           cap:   { bytes, marker (JSON text), omitted token_json, member (the text holding it) } (store.ts FillCap)
  ARGV[2..] the texts ARGV[1] names by index: each written document's JSON (fan-ins' writes too), each event's JSON
           and the remembered answer, passed as they are rather than escaped into ARGV[1]

  Returns { 'ok', n, id1 .. idn, c, counter1 .. counterc, f, fired1 .. firedf ('1' or '0'), then id, json for
  each event of a fired fan-in }, or
  { 'conflict' } when a document changed since it was read or the request was already applied, or
  { 'quota', used, needed, quota } when the commit would take the workspace's stored bytes past its quota, or
  { 'bound', n, size, max, added } when the commit's n-th sadd with a max would take its set past that bound by
  adding `added` new members (one that adds no member never does), or
  { 'corrupt', key, detail } when a document read holds JSON but no version, or
  { 'corrupt-counter', key } when the byte counter (with a quota) or a counter an increment adds to is not an
  integer, or
  { 'corrupt-fill', i, j, field, detail } when the i-th fan-in fires and its j-th fill would splice a stored entry
  that is not JSON; nothing is written in any of these cases.

  Stored bytes: the `d` field of every document plus the `e` field of every event kept. The check counts fired
  fan-ins before their fills (a commit may overshoot by its fills); the counter then moves by the exact sizes.
  The log is trimmed to exactly the retention (not MAXLEN ~) once it runs 1 % over it, and the entries trimmed are
  read first, so every trimmed event's bytes leave the count.
]]
local c = cjson.decode(ARGV[1])

-- A read's document changed since (true), or is corrupt (its key): a hash with JSON but no version would pass
-- as missing, and the commit would overwrite it. Only a missing version costs the second command.
local function stale(reads)
  for _, r in ipairs(reads) do
    local v = redis.call('HGET', KEYS[r[1]], 'v')
    if not v and redis.call('HEXISTS', KEYS[r[1]], 'd') == 1 then
      return KEYS[r[1]]
    end
    if (v or '0') ~= r[2] then
      return true
    end
  end
  return false
end

-- Which fan-ins fire, decided before anything is written (a commit's own ops never touch its fan-in sets).
local fires = {}
local removed = {}
local removals = {}
-- Fields the fan-ins' records will set, per hash key index: what a fill splices there is the record's, not stored.
local recorded = {}
for i, f in ipairs(c.fanins) do
  local gone = removed[f[1]] or {}
  removed[f[1]] = gone
  if gone[f[2]] == nil and redis.call('SISMEMBER', KEYS[f[1]], f[2]) == 1 then
    gone[f[2]] = true
    if f[3] then
      local fields = recorded[f[3][1]] or {}
      recorded[f[3][1]] = fields
      for j = 1, #f[3][2], 2 do
        fields[f[3][2][j]] = true
      end
    end
    removals[f[1]] = (removals[f[1]] or 0) + 1
    fires[i] = redis.call('SCARD', KEYS[f[1]]) == removals[f[1]]
  else
    fires[i] = false
  end
end

local function refused(changed)
  if changed == true then
    return { 'conflict' }
  end
  return { 'corrupt', changed, 'the document has JSON but no version' }
end
local changed = stale(c.reads)
if changed then
  return refused(changed)
end
for i, f in ipairs(c.fanins) do
  changed = fires[i] and stale(f[4])
  if changed then
    return refused(changed)
  end
end
if c.request and redis.call('EXISTS', KEYS[c.request[1]]) == 1 then
  return { 'conflict' }
end

-- Sets' bounds (an sadd's max), each against its set as stored, counting each new member once.
local bounded = 0
for _, op in ipairs(c.ops) do
  if op[1] == 'sadd' and op[4] then
    bounded = bounded + 1
    local key = KEYS[op[2]]
    local added, seen = 0, {}
    for _, m in ipairs(op[3]) do
      if not seen[m] and redis.call('SISMEMBER', key, m) == 0 then
        added = added + 1
      end
      seen[m] = true
    end
    local size = redis.call('SCARD', key)
    if added > 0 and size + added > op[4] then
      return { 'bound', tostring(bounded), tostring(size), tostring(op[4]), tostring(added) }
    end
  end
end

-- A fill splices its hash's entries into JSON text without decoding them (fill_text). One that is not JSON (a
-- hand-edited value) would be written and published as text no reader can parse, after this script had begun
-- writing, which Redis never rolls back. So what a firing fan-in will splice is checked here, before the first
-- write: every field (a JSON string when spliced as an object's key), and the values when spliced as an object, but
-- not the fields this commit's own records replace. Only fired fan-ins with fills pay for it (one HGETALL each).
local function not_json(text, want_string)
  local ok, value = pcall(cjson.decode, text)
  return not ok or (want_string and type(value) ~= 'string')
end
for i, f in ipairs(c.fanins) do
  if fires[i] then
    for j, fill in ipairs(f[8]) do
      local object = fill[3] ~= 'keys'
      local own = recorded[fill[2]] or {}
      local flat = redis.call('HGETALL', KEYS[fill[2]])
      for k = 1, #flat, 2 do
        if not own[flat[k]] then
          if not_json(flat[k], object) then
            return { 'corrupt-fill', tostring(i), tostring(j), flat[k], 'the field is not a JSON string' }
          end
          if object and not_json(flat[k + 1], false) then
            return { 'corrupt-fill', tostring(i), tostring(j), flat[k], 'its value is not JSON' }
          end
        end
      end
    end
  end
end

-- A counter an increment would fail on (text that is not an integer) fails the commit here, before any write, and
-- named; only increments pay for it (a draw's commit holds one).
local function corrupt_counter(ops)
  for _, op in ipairs(ops) do
    if op[1] == 'incr' then
      local value = redis.call('GET', KEYS[op[2]])
      if value and not string.match(value, '^-?%d+$') then
        return { 'corrupt-counter', KEYS[op[2]] }
      end
    end
  end
end
local bad = corrupt_counter(c.ops)
for i, f in ipairs(c.fanins) do
  bad = bad or (fires[i] and corrupt_counter(f[6]))
end
if bad then
  return bad
end

-- Each document's stored size, read once: the quota check and the write both need it.
local sizes = {}
local function doc_bytes(key)
  local size = sizes[key]
  if size == nil then
    size = redis.call('HSTRLEN', key, 'd')
    sizes[key] = size
  end
  return size
end

-- A write's new JSON, '' for a deletion.
local function text_of(w)
  if w[2] == 0 then
    return ''
  end
  return ARGV[w[2]]
end

if c.quota then
  local needed = 0
  local function writes_bytes(writes)
    for _, w in ipairs(writes) do
      needed = needed + #text_of(w) - doc_bytes(KEYS[w[1]])
    end
  end
  local function events_bytes(events)
    for _, at in ipairs(events) do
      needed = needed + #ARGV[at]
    end
  end
  writes_bytes(c.writes)
  events_bytes(c.events)
  for i, f in ipairs(c.fanins) do
    if fires[i] then
      writes_bytes(f[5])
      events_bytes(f[7])
    end
  end
  local used = tonumber(redis.call('GET', KEYS[2]) or '0')
  if not used then
    return { 'corrupt-counter', KEYS[2] }
  end
  if needed > 0 and used + needed > c.quota then
    return { 'quota', tostring(used), tostring(needed), tostring(c.quota) }
  end
end

local stored = 0

local function write(writes, filled)
  for _, w in ipairs(writes) do
    local key = KEYS[w[1]]
    stored = stored - doc_bytes(key)
    if w[2] == 0 then
      redis.call('DEL', key)
      sizes[key] = 0
    else
      local text = filled(ARGV[w[2]])
      stored = stored + #text
      redis.call('HINCRBY', key, 'v', 1)
      redis.call('HSET', key, 'd', text)
      sizes[key] = #text
    end
  end
end

-- A variadic command in slices: Lua's unpack refuses 8,000 values or more ("too many results to unpack"), and an
-- error after the first write leaves the commit half applied (Redis rolls nothing back). The slice is even, so
-- HSET's field-value and ZADD's score-member pairs stay whole; the script is still one atomic step.
local SLICE = 1000
local function call_sliced(command, key, args)
  for from = 1, #args, SLICE do
    redis.call(command, key, unpack(args, from, math.min(from + SLICE - 1, #args)))
  end
end

local counters = {}
local function apply(ops)
  for _, op in ipairs(ops) do
    local name, key = op[1], KEYS[op[2]]
    if name == 'sadd' or name == 'srem' or name == 'zadd' or name == 'zrem' or name == 'hset' or name == 'hdel' then
      call_sliced(string.upper(name), key, op[3])
    elseif name == 'hsetnx' then
      for i = 1, #op[3], 2 do
        redis.call('HSETNX', key, op[3][i], op[3][i + 1])
      end
    elseif name == 'incr' then
      counters[#counters + 1] = redis.call('INCRBY', key, op[3])
    elseif name == 'bump' then
      redis.call('HINCRBY', key, 'v', 1)
    else
      redis.call('DEL', key)
    end
  end
end

local function same(text)
  return text
end

-- Whether `a` sorts before `b` by their bytes, as the memory and file stores sort (core/byte-order.ts). Lua's `<`
-- on strings is strcoll, and Redis sets LC_COLLATE from its environment: under en_US.UTF-8 "B" sorts after "a".
local function bytes_before(a, b)
  for i = 1, math.min(#a, #b) do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then
      return x < y
    end
  end
  return #a < #b
end

-- The hash's entries, { field, value } sorted by the field's bytes.
local function sorted_entries(hash)
  local flat = redis.call('HGETALL', hash)
  local entries = {}
  for i = 1, #flat, 2 do
    entries[#entries + 1] = { flat[i], flat[i + 1] }
  end
  table.sort(entries, function(a, b) return bytes_before(a[1], b[1]) end)
  return entries
end

-- The entries as JSON text without decoding them: fields are JSON-encoded keys, values JSON.
local function fill_text(entries, as)
  local parts = {}
  for i, e in ipairs(entries) do
    parts[i] = as == 'keys' and e[1] or (e[1] .. ':' .. e[2])
  end
  if as == 'keys' then
    return '[' .. table.concat(parts, ',') .. ']'
  end
  return '{' .. table.concat(parts, ',') .. '}'
end

local function replace(text, token, by)
  local out = {}
  local from = 1
  while true do
    local s, e = string.find(text, token, from, true)
    if not s then break end
    out[#out + 1] = string.sub(text, from, s - 1)
    out[#out + 1] = by
    from = e + 1
  end
  out[#out + 1] = string.sub(text, from)
  return table.concat(out)
end

local function occurrences(text, part)
  local n, from = 0, 1
  while true do
    local _, e = string.find(text, part, from, true)
    if not e then
      return n
    end
    n = n + 1
    from = e + 1
  end
end

-- fill.ts's cappedFill, to the byte: `text` (an event's JSON) with the object fill `token` of `entries` (`whole`
-- as text) spliced in within cap = { bytes, marker, omitted token, member } (store.ts, FillCap). Past the cap each
-- entry in field order is spliced whole while the event stays within it (or does not grow by it), the marker in
-- place of the others, which the omitted token lists; the member goes when none is left out. Only an event the
-- whole fill takes past the cap pays more than the whole text: a pass over the entries' lengths.
local function capped_fill(text, token, entries, whole, cap)
  local max, marker, omitted, member = cap[1], cap[2], cap[3], cap[4]
  local n, m, count = occurrences(text, token), occurrences(text, member), #entries
  local fixed = #text - n * #token - m * #member
  if fixed + n * #whole <= max then
    return replace(replace(text, member, ''), token, whole)
  end
  local fields = 0
  for _, e in ipairs(entries) do
    fields = fields + #e[1]
  end
  local object_bytes = 2 + fields + count + math.max(count - 1, 0)
  local member_bytes = #member - #omitted + 2
  local spliced, listed, left = count * #marker, fields, count
  local function size()
    local list = 0
    if left > 0 then
      list = member_bytes + listed + left - 1
    end
    return fixed + n * (object_bytes + spliced) + m * list
  end
  local current = size()
  local parts, names = {}, {}
  for i, e in ipairs(entries) do
    spliced = spliced + #e[2] - #marker
    listed = listed - #e[1]
    left = left - 1
    local after = size()
    if after <= max or after <= current then
      current = after
      parts[i] = e[1] .. ':' .. e[2]
    else
      spliced = spliced - #e[2] + #marker
      listed = listed + #e[1]
      left = left + 1
      parts[i] = e[1] .. ':' .. marker
      names[#names + 1] = e[1]
    end
  end
  if #names == 0 then
    text = replace(text, member, '')
  else
    text = replace(text, omitted, '[' .. table.concat(names, ',') .. ']')
  end
  return replace(text, token, '{' .. table.concat(parts, ',') .. '}')
end

write(c.writes, same)
apply(c.ops)
if c.request then
  local answer = ARGV[c.request[3]]
  for i, f in ipairs(c.fanins) do
    if f[9] then
      answer = replace(answer, f[9][1], fires[i] and f[9][2] or 'null')
    end
  end
  redis.call('SET', KEYS[c.request[1]], answer, 'PX', c.request[2])
  if c.request[4] then
    -- Bounded per agent: the oldest remembered answers beyond the cap (and the expired ones) are forgotten. The
    -- time is Redis's, not the calling node's (a node whose clock is behind would score its own answer oldest and
    -- forget it at once, so a retry would apply twice), and the new answer scores above every one kept, even in
    -- the same millisecond or after Redis's clock stepped back: the answer just written is never the one popped.
    local index, keep = KEYS[c.request[4]], c.request[5]
    local time = redis.call('TIME')
    local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
    redis.call('ZREMRANGEBYSCORE', index, '-inf', now - c.request[2])
    local newest = redis.call('ZRANGE', index, -1, -1, 'WITHSCORES')[2]
    local score = newest and math.max(now, tonumber(newest) + 1) or now
    redis.call('ZADD', index, score, c.request[6])
    local over = redis.call('ZCARD', index) - keep
    if over > 0 then
      local popped = redis.call('ZPOPMIN', index, over)
      for i = 1, #popped, 2 do
        redis.call('DEL', c.request[7] .. popped[i])
      end
    end
    redis.call('PEXPIRE', index, c.request[2])
  end
end

-- The log entry before the next one: published with each event, so a subscriber that missed a message sees it
-- at the next one (its predecessor is not the last id it delivered) instead of at its next reconnect.
local previous = nil
local function publish(json)
  if previous == nil then
    local newest = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)[1]
    previous = newest and newest[1] or '0-0'
  end
  local id = redis.call('XADD', KEYS[1], '*', 'e', json)
  stored = stored + #json
  -- The workspace's own channel, in its hash tag (sharded pub/sub): only nodes whose clients watch the workspace
  -- subscribe to it, and on Redis Cluster only the shard that holds the workspace carries it.
  redis.call('SPUBLISH', c.channel, cjson.encode({ c.workspace, id, json, previous }))
  previous = id
  return id
end

local result = { 'ok', tostring(#c.events) }
for _, at in ipairs(c.events) do
  result[#result + 1] = publish(ARGV[at])
end

local fired = {}
for i, f in ipairs(c.fanins) do
  if redis.call('SREM', KEYS[f[1]], f[2]) == 1 then
    if f[3] then
      call_sliced('HSET', KEYS[f[3][1]], f[3][2])
    end
    if fires[i] then
      local texts, capped = {}, {}
      for j, fill in ipairs(f[8]) do
        local entries = sorted_entries(KEYS[fill[2]])
        texts[j] = { fill[1], fill_text(entries, fill[3]) }
        if fill[4] then
          capped[#capped + 1] = { fill[1], entries, texts[j][2], fill[4] }
        end
      end
      local function filled(text)
        for _, t in ipairs(texts) do
          text = replace(text, t[1], t[2])
        end
        return text
      end
      -- An event: the plain fills first, then each capped one within its cap (documents get every fill whole).
      local function filled_event(text)
        for j, t in ipairs(texts) do
          if not f[8][j][4] then
            text = replace(text, t[1], t[2])
          end
        end
        for _, x in ipairs(capped) do
          text = capped_fill(text, x[1], x[2], x[3], x[4])
        end
        return text
      end
      write(f[5], filled)
      apply(f[6])
      for _, at in ipairs(f[7]) do
        local text = filled_event(ARGV[at])
        fired[#fired + 1] = publish(text)
        fired[#fired + 1] = text
      end
    end
  end
end

-- The events that leave the log leave the workspace's stored bytes too, counted exactly. The log is trimmed back
-- to the retention once it is 1 % over it (at least one event), not at every commit: reading and trimming one
-- entry per commit was about a tenth of this script's time.
local over = redis.call('XLEN', KEYS[1]) - c.retention
if over >= math.max(1, math.floor(c.retention / 100)) then
  local trimmed = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', over)
  for _, entry in ipairs(trimmed) do
    local fields = entry[2]
    for j = 1, #fields, 2 do
      if fields[j] == 'e' then
        stored = stored - #fields[j + 1]
      end
    end
  end
  redis.call('XTRIM', KEYS[1], 'MAXLEN', c.retention)
  -- A reader whose cursor is older than this lost events to retention, and is told so (events/trimmed-gap.ts).
  redis.call('SET', KEYS[3], trimmed[#trimmed][1])
end
-- pcall: without a quota nothing checked the counter, and a corrupt one must not fail a commit already written.
if stored ~= 0 then
  redis.pcall('INCRBY', KEYS[2], stored)
end

result[#result + 1] = tostring(#counters)
for _, n in ipairs(counters) do
  result[#result + 1] = tostring(n)
end
result[#result + 1] = tostring(#c.fanins)
for i = 1, #c.fanins do
  result[#result + 1] = fires[i] and '1' or '0'
end
for _, x in ipairs(fired) do
  result[#result + 1] = x
end
return result
