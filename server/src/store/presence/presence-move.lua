-- Moves a dead node's presence entries of one workspace to offline ones, each only if it still holds the value the
-- taker read (the node may have come back and written it again, which must stay).
-- KEYS[1]  the workspace's presence hash
-- ARGV     per entry: its field, the value read, its offline field, the offline value; an empty offline field
--          deletes the entry only (a corrupt one, which has no last_seen_at to keep)
-- Answers the fields moved or deleted.
local moved = {}
for i = 1, #ARGV, 4 do
  if redis.call('HGET', KEYS[1], ARGV[i]) == ARGV[i + 1] then
    if ARGV[i + 2] ~= '' then
      redis.call('HSET', KEYS[1], ARGV[i + 2], ARGV[i + 3])
    end
    redis.call('HDEL', KEYS[1], ARGV[i])
    moved[#moved + 1] = ARGV[i]
  end
end
return moved
