/**
 * The sliding window as Lua scripts, so a hit is atomic on the Redis server: expire, count,
 * maybe add, and report happen with no other client's command in between.
 *
 * Each window is a sorted set of its counted hits (score: the hit's time in ms) and a counter
 * that makes each member unique. The time is in ms, or an empty string to read Redis's own
 * clock (TIME), so every process shares one clock.
 *
 * It mirrors the in-memory limiter (packages/core/src/memory/memory-rate-limiter.ts): hits at
 * or before `now - window` have left the window; a refused hit is not counted. A hit reports
 * {allowed (0/1), remaining, retryAfterMs, resetMs}.
 */
const HIT_FUNCTION = `
local function clock(given)
  if given ~= '' then return tonumber(given) end
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
local function hit(window_key, sequence_key, limit, window, now)
  redis.call('ZREMRANGEBYSCORE', window_key, '-inf', now - window)
  local counted = redis.call('ZCARD', window_key)
  local allowed = 0
  if counted < limit then
    allowed = 1
    local sequence = redis.call('INCR', sequence_key)
    redis.call('ZADD', window_key, now, now .. ':' .. sequence)
    counted = counted + 1
  end
  local function expires_in(entry)
    if entry[2] == nil then return 0 end
    return math.max(0, tonumber(entry[2]) + window - now)
  end
  local newest = redis.call('ZRANGE', window_key, -1, -1, 'WITHSCORES')
  local reset = expires_in(newest)
  local retry = 0
  if counted >= limit then retry = expires_in(redis.call('ZRANGE', window_key, 0, 0, 'WITHSCORES')) end
  if reset > 0 then
    redis.call('PEXPIRE', window_key, reset)
    redis.call('PEXPIRE', sequence_key, reset)
  end
  return {allowed, math.max(0, limit - counted), retry, reset}
end
`;

/** One hit. KEYS: the window, its counter. ARGV: limit, window in ms, time in ms (or ''). */
export const SLIDING_WINDOW_SCRIPT = `${HIT_FUNCTION}
return hit(KEYS[1], KEYS[2], tonumber(ARGV[1]), tonumber(ARGV[2]), clock(ARGV[3]))
`;

/**
 * Several hits in order, stopping at the first refused (RateLimiter.hitInOrder). KEYS: each
 * hit's window and counter, in pairs. ARGV: the time in ms (or ''), then each hit's limit and
 * window in ms. Returns the tried hits' reports, four numbers each.
 */
export const SLIDING_WINDOWS_SCRIPT = `${HIT_FUNCTION}
local now = clock(ARGV[1])
local reports = {}
for index = 1, #KEYS / 2 do
  local report = hit(KEYS[2 * index - 1], KEYS[2 * index], tonumber(ARGV[2 * index]), tonumber(ARGV[2 * index + 1]), now)
  for _, value in ipairs(report) do reports[#reports + 1] = value end
  if report[1] == 0 then break end
end
return reports
`;
