export { createRequestHandler, consoleLog, type LogSink } from "./http/create-request-handler.js";
export { statusForCode, HttpError } from "./http/http-error.js";
export { chatRequestSchema } from "./http/endpoints/spec.js";
export { chatResponseSchema, chatbotSummarySchema, chatbotDetailSchema, errorSchema } from "./http/views-chat.js";
export { loadConfig, ConfigError, type ServerConfig } from "./runtime/config.js";
export { openParley, embedderFor, type ParleyRuntime, type SqliteRuntime } from "./runtime/open-parley.js";
export { openRuntime } from "./runtime/open-runtime.js";
export { startServer, type RunningServer } from "./runtime/serve.js";
export { main } from "./cli.js";
