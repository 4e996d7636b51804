import { consoleLog } from "../http/log-lines.js";
import { limitHeapGrowth } from "../runtime/heap-growth.js";
import { banner, ollamaAnswers, seedQuickstart } from "../runtime/quickstart.js";
import { startServer } from "../runtime/serve.js";
import { INGEST_COMMAND } from "./ingest-command.js";
import { required, UsageError, wholeNumber, type Command } from "./command.js";

const text = { type: "string" } as const;

/** `ingest`, `reindex` and `serve`. */
export const RUNTIME_COMMANDS: Command[] = [
  INGEST_COMMAND,
  {
    name: "reindex",
    usage: "parley reindex --bot BOT_ID",
    summary: "Re-embed every chunk of a chatbot with the configured embedder (after changing PARLEY_EMBEDDER).",
    options: { bot: text },
    positionals: { min: 0, max: 0 },
    async run(input, { runtime }) {
      return runtime.parley.admin.reindexChatbot(required(input, "bot"));
    },
  },
  {
    name: "serve",
    usage: "parley serve [--port N] [--host H] [--quickstart]",
    summary: "Serve the API (default 127.0.0.1:8787). --quickstart seeds a demo user, key and chatbot on an empty database.",
    options: { port: text, host: text, quickstart: { type: "boolean" } },
    positionals: { min: 0, max: 0 },
    async run(input, { runtime, config, io }) {
      // The process is the server's: its garbage is collected at a bounded growth (docs/operations.md, "Memory").
      limitHeapGrowth();
      const port = typeof input.values.port === "string" ? wholeNumber(input.values.port, "port") : config.port;
      if (port > 65_535) throw new UsageError(`--port must be at most 65535 (got ${port}).`);
      const host = typeof input.values.host === "string" ? input.values.host : config.host;
      const seed = input.values.quickstart === true ? await seedQuickstart(runtime, config) : null;
      const running = await startServer({ runtime, port, host, log: consoleLog, limits: config.http, shutdownGraceMs: config.shutdownGraceMs, consoleRoot: config.consoleDir, widgetRoot: config.widgetDir });
      // Webhook delivery runs beside the server; running.stop() waits for it before closing the database.
      runtime.dispatcher.start();
      // Ingestions queued by the API run here, and those a stopped process left are resumed.
      runtime.ingestions.start();
      // A reply a stopped process was generating is lost with it: its conversation is marked for an agent.
      runtime.unanswered.start();
      const ollama = seed?.provider === "ollama" ? await ollamaAnswers(config.providers.ollama.host) : undefined;
      io.stderr.write(`${banner(running.url, config, seed, ollama)}\n`);
      await new Promise<void>((resolve) => {
        const shutdown = (signal: string) => {
          io.stderr.write(`Received ${signal}: finishing requests in flight, then closing the database.\n`);
          void running.stop().then(() => {
            resolve();
            // A request cut at the end of the grace may still await its model call; it must not hold the process.
            setTimeout(() => process.exit(), 200).unref();
          });
        };
        process.once("SIGTERM", () => shutdown("SIGTERM"));
        process.once("SIGINT", () => shutdown("SIGINT"));
      });
      return { stopped: true };
    },
  },
];
