// Kill -9 at random moments: the pieces of the crash test and of `npm run crash`. The server and
// the CLI run as child processes built once into plain JavaScript (starting them through tsx
// would cost a second or more per restart), on real SQLite in a temporary folder.
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleFromSources } from "../../bench/build-server.js";

const REPOSITORY = fileURLToPath(new URL("../../../../", import.meta.url));

/** Builds the crash server and the CLI into a folder of their own under `.parley-bench/`; returns their paths. */
export async function buildChildren(): Promise<{ server: string; cli: string; folder: string }> {
  const folder = await bundleFromSources("crash", {
    server: fileURLToPath(new URL("./crash-server.ts", import.meta.url)),
    cli: fileURLToPath(new URL("../run-cli.ts", import.meta.url)),
  });
  return { server: join(folder, "server.js"), cli: join(folder, "cli.js"), folder };
}

/** A child process and the moment it exits. */
export interface Child {
  process: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
}

/** Runs `node script args` with `env`, its stdout handed to `onLine` line by line. */
export function startChild(script: string, args: string[], env: Record<string, string>, onLine: (line: string) => void = () => {}): Child {
  const child = spawn(process.execPath, [script, ...args], { cwd: REPOSITORY, env: { PATH: process.env.PATH ?? "", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  let pending = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    pending += chunk.toString("utf8");
    const lines = pending.split("\n");
    pending = lines.pop()!;
    for (const line of lines) onLine(line);
  });
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  return { process: child, exited, stderr: () => stderr };
}

/** Starts the crash server and resolves with its URL once it listens. */
export function startServerChild(script: string, env: Record<string, string>): Promise<Child & { url: string }> {
  return new Promise((resolve, reject) => {
    const child = startChild(script, [], env, (line) => {
      const match = /^ready (\S+)$/.exec(line);
      if (match) resolve({ ...child, url: match[1]! });
    });
    void child.exited.then(({ code, signal }) => reject(new Error(`the server exited (${code ?? signal}) before it was ready:\n${child.stderr()}`)));
  });
}

/** A seeded pseudo-random generator (mulberry32), so a run's kill moments can be replayed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** A webhook receiver that refuses about a third of the attempts (503), so retries are always under way. */
export async function startFlakyReceiver(random: () => number) {
  const delivered = new Set<string>();
  let attempts = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      attempts += 1;
      const id = String(request.headers["webhook-id"]);
      if (random() < 0.35) return void response.writeHead(503).end();
      delivered.add(id);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    delivered,
    attempts: () => attempts,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/** What a client saw for one chat message. */
export interface ChatOutcome {
  botId: string;
  session: string;
  message: string;
  status: number | null;
  response: string | null;
}

/**
 * Keeps `workers` clients sending chats (each message unique) until `stop()`; a message whose
 * request failed on the wire is recorded with status null.
 */
export function startChatLoad(options: { url: string; key: string; botIds: string[]; workers: number; tag: string; outcomes: ChatOutcome[] }) {
  let running = true;
  let answered = 0;
  const waiters: { count: number; resolve: () => void }[] = [];
  const worker = async (index: number) => {
    for (let sequence = 0; running; sequence += 1) {
      if (!running) return;
      const botId = options.botIds[(index + sequence) % options.botIds.length]!;
      // A session per worker and bot, and now and then a new one, so conversations start under the kills too.
      const session = `${options.tag}-w${index}-${Math.floor(sequence / 5)}`;
      const message = `${options.tag} worker ${index} message ${sequence}`;
      const outcome: ChatOutcome = { botId, session, message, status: null, response: null };
      options.outcomes.push(outcome);
      try {
        const answer = await fetch(`${options.url}/v1/chatbots/${botId}/chat`, {
          method: "POST",
          headers: { authorization: `Bearer ${options.key}`, "content-type": "application/json" },
          body: JSON.stringify({ message, session_id: session }),
        });
        const body = (await answer.json()) as { response?: string };
        outcome.status = answer.status;
        outcome.response = body.response ?? null;
        answered += 1;
        for (const waiter of waiters.filter((candidate) => answered >= candidate.count)) waiter.resolve();
      } catch {
        // The server died under this request: nothing was promised to the client, and this worker stops.
        return;
      }
    }
  };
  const done = Promise.all(Array.from({ length: options.workers }, (_, index) => worker(index)));
  return {
    /** Resolves once `count` chats of this load have been answered (any status). */
    answered: (count: number) => (answered >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ count, resolve }))),
    stop: async () => {
      running = false;
      await done;
    },
  };
}
