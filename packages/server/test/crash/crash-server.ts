// The server as the crash test runs it: `parley serve`'s runtime and HTTP server, with the webhook
// dispatcher's lease and retries shortened from minutes to milliseconds, so that deliveries cut
// by a SIGKILL are retried within the test rather than a minute later. Prints "ready <url>".
import { loadConfig } from "../../src/runtime/config.js";
import { openParley } from "../../src/runtime/open-parley.js";
import { startServer } from "../../src/runtime/serve.js";

const config = loadConfig(process.env);
const runtime = openParley(config);
runtime.dispatcher = runtime.parley.createWebhookDispatcher({
  leaseMs: 1_500,
  timeoutMs: 1_000,
  pollIntervalMs: 100,
  retry: { ceilingsMs: [50, 100, 200, 400] },
});
const running = await startServer({ runtime, port: 0, host: "127.0.0.1", log: () => {}, limits: config.http, shutdownGraceMs: config.shutdownGraceMs });
runtime.dispatcher.start();
process.stdout.write(`ready ${running.url}\n`);
process.once("SIGTERM", () => void running.stop().then(() => process.exit(0)));
