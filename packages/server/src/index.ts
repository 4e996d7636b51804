export { createRequestHandler, consoleLog, type LogSink } from "./http/create-request-handler.js";
export { statusForCode, HttpError } from "./http/http-error.js";
export { chatRequestSchema, chatResponseSchema, chatbotSummarySchema, chatbotDetailSchema, errorSchema } from "./http/schemas.js";
export { loadConfig, ConfigError, type ServerConfig } from "./runtime/config.js";
export { openParley, embedderFor, type ParleyRuntime, type SqliteRuntime } from "./runtime/open-parley.js";
export { openRuntime } from "./runtime/open-runtime.js";
export { startServer, type RunningServer } from "./runtime/serve.js";
export { main } from "./cli.js";
