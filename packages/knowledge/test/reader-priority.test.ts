import { existsSync, readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createDocumentReader } from "../src/index.js";

/** The nice value of one of this process's threads, or null when it has ended. */
function niceOf(thread: string): number | null {
  try {
    // Field 19 of /proc/<pid>/task/<tid>/stat; the command name (field 2) may hold spaces, so count from its ")".
    return Number(readFileSync(`/proc/self/task/${thread}/stat`, "utf8").split(") ")[1]!.split(" ")[16]);
  } catch {
    return null;
  }
}

describe("the document reader's priority (issue 24)", () => {
  // Linux only: elsewhere a thread has no nice value of its own and the worker keeps the process's.
  it.runIf(existsSync("/proc/thread-self"))("runs its workers, and every thread a worker starts, at nice 19", async () => {
    const before = new Set(readdirSync("/proc/self/task"));
    const reader = createDocumentReader();
    try {
      expect((await reader.read({ bytes: Buffer.from("<p>Open nine to five.</p>"), name: "hours.html", source: "hours.html" })).document.text).toBe("Open nine to five.");
      // From the sources these are the worker and the module-hooks thread tsx starts in it,
      // which compiles the parsers' TypeScript: started at the default priority it competed
      // with the server's event loop for the CPU.
      const started = [...readdirSync("/proc/self/task")].filter((thread) => !before.has(thread)).map(niceOf).filter((nice) => nice !== null);
      expect(started.length).toBeGreaterThan(0);
      expect(started).toEqual(started.map(() => 19));
    } finally {
      await reader.close();
    }
  });
});
