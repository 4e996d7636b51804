import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { statFields } from "./reader-processes.js";

/** A process's state letter (R, S, Z...), or null once it is gone. */
const stateOf = (pid: string) => statFields(pid)?.[0] ?? null;

/** Seconds of CPU a process has used, user and system (fields 14 and 15 of its stat). */
function cpuSecondsOf(pid: string): number {
  const fields = statFields(pid)!;
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

describe("a reader whose server is killed (kill -9) while it parses", () => {
  // Linux only: the test finds the reader through /proc.
  it.runIf(existsSync(`/proc/self/task/${process.pid}/children`))("ends at once, instead of parsing the hostile page to its end with nobody to answer", async () => {
    const server = spawn(process.execPath, ["--conditions=source", "--import", "tsx", fileURLToPath(new URL("./orphan-reader-server.ts", import.meta.url))], {
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      stdio: ["ignore", "pipe", "inherit"],
    });
    const [line] = (await once(server.stdout!, "data")) as [Buffer];
    const [reader, ...others] = line.toString().trim().split(" ");
    try {
      expect(others).toEqual([]);
      // The page keeps a reader busy for tens of seconds of CPU (docs/benchmarks.md, "Hostile input"):
      // two more seconds of it than the reader had used loading and reading the small page, and it is in it.
      const loaded = cpuSecondsOf(reader!);
      await expect.poll(() => cpuSecondsOf(reader!), { timeout: 30_000, interval: 50 }).toBeGreaterThan(loaded + 2);
      server.kill("SIGKILL");
      await once(server, "exit");
      // Gone, or a zombie waiting for whichever process adopted it to reap it.
      await expect.poll(() => String(stateOf(reader!)), { timeout: 10_000, interval: 50 }).toMatch(/^(Z|null)$/);
    } finally {
      server.kill("SIGKILL");
      if (stateOf(reader!) !== null) process.kill(Number(reader), "SIGKILL");
    }
  }, 60_000);
});
