import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createPool, openPostgres } from "@parley/postgres";
import { loadConfig } from "../../src/runtime/config.js";
import type { ParleyRuntime } from "../../src/runtime/open-parley.js";
import { enginesToEnv, openScaleoutRuntime, type ScaleoutEngines } from "./scaleout-wiring.js";

const SERVER_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** A server process of the cluster. */
export interface Member {
  url: string;
  child: ChildProcess;
}

/** Starts one server process and resolves once it prints its URL. */
function startMember(env: Record<string, string>): Promise<Member> {
  const script = "test/scaleout/scaleout-child.ts";
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", script], {
      cwd: SERVER_ROOT,
      env: { PATH: process.env.PATH, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk));
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk;
      const line = stdout.split("\n").find((candidate) => candidate.startsWith("{"));
      if (line) resolve({ url: (JSON.parse(line) as { url: string }).url, child });
    });
    child.once("exit", (code) => reject(new Error(`${script} exited (${code}) before listening: ${stderr}`)));
  });
}

/**
 * Several server processes on one PostgreSQL (Storage and the search index, in a schema of this
 * run; in-process vectors where the server has no pgvector) and one Redis, plus a runtime in this
 * process for seeding.
 */
export async function startCluster(options: { size: number; databaseUrl: string; redisUrl: string; env: Record<string, string> }) {
  const schema = `parley_cluster_${randomUUID().replaceAll("-", "")}`;
  const setup = createPool({ url: options.databaseUrl, poolSize: 1 });
  await setup.query(`CREATE SCHEMA ${schema}`);
  const engines: ScaleoutEngines = { databaseUrl: options.databaseUrl, schema, redisUrl: options.redisUrl, redisPrefix: `parley-cluster:${randomUUID()}:` };
  // Migrated once here, so the processes start on an up-to-date schema.
  const storagePool = createPool({ url: options.databaseUrl, schema, poolSize: 2 });
  await openPostgres({ pool: storagePool });
  const env = { ...options.env, ...enginesToEnv(engines) };
  const seeder: ParleyRuntime = await openScaleoutRuntime(loadConfig(env), engines);
  const members = await Promise.all(Array.from({ length: options.size }, () => startMember(env)));
  return {
    members,
    seeder,
    /** The database of the run, for assertions. */
    storagePool,
    schema,
    async stop() {
      await Promise.all(
        members.map(({ child }) =>
          child.exitCode !== null || child.signalCode !== null ? undefined : new Promise<void>((resolve) => (child.once("exit", () => resolve()), child.kill("SIGTERM"))),
        ),
      );
      await seeder.close();
      await storagePool.end();
      await setup.query(`DROP SCHEMA ${schema} CASCADE`);
      await setup.end();
    },
  };
}
