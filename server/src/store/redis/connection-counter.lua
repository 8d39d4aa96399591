-- Admits one connection of an agent if it holds fewer than the limit (PlanHub connection limit).
-- KEYS[1]  sorted set of the agent's live connections: member = connection id, score = lease expiry (ms)
-- ARGV[1]  now (ms)    ARGV[2]  lease expiry of the new member (ms)    ARGV[3]  connection id    ARGV[4]  limit
-- Returns  the number of live connections after the call, negated when the connection was refused.
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local live = redis.call('ZCARD', KEYS[1])
if live >= tonumber(ARGV[4]) then
  return -live
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
redis.call('PEXPIREAT', KEYS[1], ARGV[2])
return live + 1
