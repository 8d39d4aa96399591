--[[
  Applies one call atomically: checks what it read, remembers the request, writes the documents, appends the
  events to the workspace log and publishes them. Either all of it happens or none of it.

  KEYS[1]             the workspace event stream
  KEYS[2]             the request-log key (unused when ARGV[5] is '')
  KEYS[3 .. 2+r]      the documents read (r = ARGV[2])
  KEYS[3+r .. 2+r+w]  the documents written (w = ARGV[3])

  ARGV[1]             the pub/sub channel
  ARGV[2]             r, the number of documents read
  ARGV[3]             w, the number of documents written
  ARGV[4]             events kept in the stream (XADD MAXLEN ~)
  ARGV[5]             the request's time to live in ms, or '' when the call has no request_id
  ARGV[6]             the request's answer (JSON)
  ARGV[7]             the workspace, for the published message
  ARGV[8 .. 7+r]      the version each read document must still have ('0' = must not exist)
  ARGV[8+r .. 7+r+w]  each written document's JSON ('' deletes it)
  ARGV[8+r+w ..]      each event's envelope as JSON, without event_id

  Returns { 'ok', id1, id2, ... } (the stream ids of the events, in order), or { 'conflict' } when a document
  changed since it was read or the request was already applied; a conflict writes nothing.
]]
local reads = tonumber(ARGV[2])
local writes = tonumber(ARGV[3])
local ttl = ARGV[5]

for i = 1, reads do
  local version = redis.call('HGET', KEYS[2 + i], 'v') or '0'
  if version ~= ARGV[7 + i] then
    return { 'conflict' }
  end
end
if ttl ~= '' and redis.call('EXISTS', KEYS[2]) == 1 then
  return { 'conflict' }
end

for i = 1, writes do
  local key = KEYS[2 + reads + i]
  local value = ARGV[7 + reads + i]
  if value == '' then
    redis.call('DEL', key)
  else
    redis.call('HINCRBY', key, 'v', 1)
    redis.call('HSET', key, 'd', value)
  end
end
if ttl ~= '' then
  redis.call('SET', KEYS[2], ARGV[6], 'PX', ttl)
end

local result = { 'ok' }
for i = 8 + reads + writes, #ARGV do
  local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[4], '*', 'e', ARGV[i])
  result[#result + 1] = id
  -- One channel for every workspace: a node subscribes once, whatever workspaces it serves.
  redis.call('PUBLISH', ARGV[1], cjson.encode({ ARGV[7], id, ARGV[i] }))
end
return result
