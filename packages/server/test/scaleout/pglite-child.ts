// A PGlite with pgvector in a process of its own, for the scale-out test and benchmark:
// `node --conditions=source --import tsx test/scaleout/pglite-child.ts`. Prints {"url": …}
// once it listens; stops on SIGTERM. Its own process keeps its WebAssembly engine off the CPU
// of the process driving the load.
import { startPgliteServer } from "@parley/postgres/pglite";

const server = await startPgliteServer();
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
process.once("SIGTERM", () => void server.stop().then(() => process.exit(0)));
