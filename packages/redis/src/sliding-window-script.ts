/**
 * The sliding window as one Lua script, so a hit is atomic on the Redis server: expire, count,
 * maybe add, and report happen with no other client's command in between.
 *
 * KEYS[1] is the sorted set of the window's counted hits (score: the hit's time in ms), KEYS[2]
 * the counter that makes each member unique. ARGV: limit, window in ms, and the time in ms, or
 * an empty string to read Redis's own clock (TIME), so every process shares one clock.
 *
 * It mirrors the in-memory limiter (packages/core/src/memory/memory-rate-limiter.ts): hits at
 * or before `now - window` have left the window; a refused hit is not counted.
 * Returns {allowed (0/1), remaining, retryAfterMs, resetMs}.
 */
export const SLIDING_WINDOW_SCRIPT = `
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local now
if ARGV[3] == '' then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
else
  now = tonumber(ARGV[3])
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local counted = redis.call('ZCARD', KEYS[1])
local allowed = 0
if counted < limit then
  allowed = 1
  local sequence = redis.call('INCR', KEYS[2])
  redis.call('ZADD', KEYS[1], now, now .. ':' .. sequence)
  counted = counted + 1
end
local function expires_in(entry)
  if entry[2] == nil then return 0 end
  return math.max(0, tonumber(entry[2]) + window - now)
end
local newest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
local reset = expires_in(newest)
local retry = 0
if counted >= limit then retry = expires_in(redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')) end
if reset > 0 then
  redis.call('PEXPIRE', KEYS[1], reset)
  redis.call('PEXPIRE', KEYS[2], reset)
end
return {allowed, math.max(0, limit - counted), retry, reset}
`;
