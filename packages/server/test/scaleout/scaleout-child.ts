// One `parley serve` of a scale-out test, as a child process:
// `node --conditions=source --import tsx test/scaleout/scaleout-child.ts`. Prints {"url": …} once
// it listens, delivers webhooks beside the server, and stops gracefully on SIGTERM.
import { loadConfig } from "../../src/runtime/config.js";
import { startServer } from "../../src/runtime/serve.js";
import { enginesFromEnv, openScaleoutRuntime } from "./scaleout-wiring.js";

const runtime = await openScaleoutRuntime(loadConfig(process.env), enginesFromEnv(process.env));
const running = await startServer({ runtime, port: 0, host: "127.0.0.1", log: () => {} });
runtime.dispatcher.start();
process.stdout.write(`${JSON.stringify({ url: running.url, pid: process.pid })}\n`);
process.once("SIGTERM", () => void running.stop().then(() => process.exit(0)));
