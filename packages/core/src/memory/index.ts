export { createMemoryStorage } from "./memory-storage.js";
export { createMemoryRateLimiter } from "./memory-rate-limiter.js";
export { createManualClock, type ManualClock } from "./manual-clock.js";
export { createSequentialIds } from "./sequential-ids.js";
export { createScriptedChatModel, type ScriptedChatModel, type ScriptedStep, type ScriptedStream } from "./scripted-chat-model.js";
export { createMemorySearchIndex } from "./memory-search-index.js";
