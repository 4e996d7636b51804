import { existsSync, readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createDocumentReader } from "../src/index.js";
import { readerProcesses, statFields } from "./reader-processes.js";

/** The nice value of a thread (field 19 of its stat), or null when it has ended. */
function niceOf(pid: string, thread: string): number | null {
  const fields = statFields(`${pid}/task/${thread}`);
  return fields === null ? null : Number(fields[16]);
}

describe("the document reader's priority (issue 24)", () => {
  // Linux only: elsewhere the bootstrap lowers the whole process, which this test cannot see per thread.
  it.runIf(existsSync(`/proc/self/task/${process.pid}/children`))("runs its processes, with every thread in them, at nice 19, and starts no thread here", async () => {
    const threadsBefore = new Set(readdirSync("/proc/self/task"));
    const reader = createDocumentReader();
    try {
      expect((await reader.read({ bytes: Buffer.from("<p>Open nine to five.</p>"), name: "hours.html", source: "hours.html" })).document.text).toBe("Open nine to five.");
      const [pid, ...others] = readerProcesses();
      expect(pid).toBeDefined();
      expect(others).toEqual([]);
      // V8's GC helpers and libuv's pool in the reader, and from the sources the module-hooks
      // thread tsx starts, which compiles the parsers' TypeScript: at the default priority they
      // competed with the server's event loop for the CPU.
      const threads = readdirSync(`/proc/${pid}/task`).map((thread) => niceOf(pid!, thread)).filter((nice) => nice !== null);
      expect(threads.length).toBeGreaterThan(3);
      expect(threads).toEqual(threads.map(() => 19));
      // Parsing happened in the reader: this process has no new thread at a lowered priority.
      const lowered = readdirSync("/proc/self/task").filter((thread) => !threadsBefore.has(thread) && (niceOf("self", thread) ?? 0) > 0);
      expect(lowered).toEqual([]);
    } finally {
      await reader.close();
    }
  });
});
