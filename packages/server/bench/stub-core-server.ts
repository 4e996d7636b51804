// The HTTP layer alone: Parley's request handler (routing, headers, request id, the access log
// line on stdout) in front of a stub core whose calls answer at once with fixed values, so the
// difference to the real server is what the core and SQLite cost. Prints its URL when listening.
import type { Parley } from "@parley/core";
import { createServer } from "node:http";
import { createRequestHandler } from "../src/http/create-request-handler.js";
import { consoleLog } from "../src/http/log-lines.js";

const caller = {
  user: { id: "7b0c6d1e-0000-4000-8000-000000000001", email: "bench@example.com", planName: "bench", monthlyMessagesOverride: null, createdAt: 0 },
  apiKey: { id: "7b0c6d1e-0000-4000-8000-000000000002", userId: "7b0c6d1e-0000-4000-8000-000000000001", name: "bench", scope: "chat", keyHash: "", createdAt: 0, revokedAt: null },
};
const chatbots = [
  { id: "7b0c6d1e-0000-4000-8000-000000000003", name: "Appliance Support", slug: "appliance-support", provider: "openai", is_active: true, created_at: "2026-11-21T13:00:00.000000+00:00" },
];
const stub = {
  authenticate: async () => caller,
  admitRequest: async () => ({ limit: 1_000_000, remaining: 999_999, resetSeconds: 60 }),
  listChatbots: async () => chatbots,
} as unknown as Parley;

const server = createServer({ keepAliveTimeout: 5_000 }, createRequestHandler({ parley: stub, log: consoleLog, secrets: ["sk-bench"] }));
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  process.stderr.write(`http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}\n`);
});
process.once("SIGTERM", () => server.close(() => process.exit(0)));
