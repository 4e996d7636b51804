import { execFile, spawn, type ChildProcess } from "node:child_process";
import { chmodSync, chownSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

// A PostgreSQL and a Redis of a test's own, on free ports in a temporary folder, for tests that
// stop and restart them: the machine's shared servers are never touched.

const run = promisify(execFile);
const POSTGRES_BIN = "/usr/local/bin";

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Why a private PostgreSQL cannot run here, or undefined when it can. */
export async function privatePostgresUnavailable(): Promise<string | undefined> {
  try {
    await run(join(POSTGRES_BIN, "initdb"), ["--version"]);
  } catch {
    return `no initdb in ${POSTGRES_BIN}`;
  }
  if (process.getuid?.() === 0) {
    try {
      await run("runuser", ["-u", "postgres", "--", "true"]);
    } catch {
      return "running as root (PostgreSQL refuses it) and runuser -u postgres fails";
    }
  }
  return undefined;
}

/** PostgreSQL's tools as the user who may run them: postgres when this process is root. */
const asServerUser = (command: string, args: string[]) =>
  process.getuid?.() === 0 ? run("runuser", ["-u", "postgres", "--", join(POSTGRES_BIN, command), ...args]) : run(join(POSTGRES_BIN, command), args);

/** A private PostgreSQL (trust authentication, 127.0.0.1 only), started; `restart` waits until it accepts connections again. */
export async function startPrivatePostgres() {
  const folder = mkdtempSync(join(tmpdir(), "parley-private-pg-"));
  const data = join(folder, "data");
  if (process.getuid?.() === 0) {
    const { stdout } = await run("id", ["-u", "postgres"]);
    const { stdout: group } = await run("id", ["-g", "postgres"]);
    chownSync(folder, Number(stdout.trim()), Number(group.trim()));
  }
  chmodSync(folder, 0o700);
  const port = await freePort();
  await asServerUser("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync"]);
  const options = `-p ${port} -k ${folder} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const start = () => asServerUser("pg_ctl", ["-D", data, "-o", options, "-l", join(folder, "log"), "-w", "start"]);
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    /** Stops it (fast: open connections are cut) and starts it again. */
    async restart() {
      await asServerUser("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]);
      await start();
    },
    async stop() {
      await asServerUser("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]).catch(() => {});
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** A private Redis without persistence; `stop` and `start` again on the same port. */
export async function startPrivateRedis() {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = () =>
    new Promise<void>((resolve, reject) => {
      const started = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: ["ignore", "pipe", "pipe"] });
      let output = "";
      started.stdout!.on("data", (chunk: Buffer) => {
        output += chunk;
        if (output.includes("Ready to accept connections")) resolve();
      });
      started.once("exit", (code) => reject(new Error(`redis-server exited (${code}): ${output}`)));
      child = started;
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child === undefined || child.exitCode !== null) return resolve();
      child.removeAllListeners("exit");
      child.once("exit", () => resolve());
      child.kill("SIGKILL");
    });
  await start();
  return { url: `redis://127.0.0.1:${port}`, start, stop };
}
