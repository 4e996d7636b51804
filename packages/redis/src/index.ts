export { connectRedis, DEFAULT_REDIS_COMMAND_TIMEOUT_MS, type RedisClient, type RedisConnection } from "./connect-redis.js";
export { createRedisRateLimiter, type RedisRateLimiterOptions, type RedisScripting } from "./redis-rate-limiter.js";
