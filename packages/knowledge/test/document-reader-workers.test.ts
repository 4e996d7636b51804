import { once } from "node:events";
import type * as WorkerThreads from "node:worker_threads";
import type { Worker } from "node:worker_threads";
import { describe, expect, it, vi } from "vitest";
import { createDocumentReader } from "../src/index.js";
import { poisonHtml } from "./hostile-documents.js";

// Every worker the reader starts, to tell a reused worker from a fresh one.
const started = vi.hoisted(() => [] as Worker[]);
vi.mock("node:worker_threads", async (importOriginal) => {
  const actual = await importOriginal<typeof WorkerThreads>();
  class CountedWorker extends actual.Worker {
    constructor(...args: ConstructorParameters<typeof actual.Worker>) {
      super(...args);
      started.push(this);
    }
  }
  return { ...actual, Worker: CountedWorker };
});

const page = (text: string) => ({ bytes: Buffer.from(`<p>${text}</p>`), name: "page.html", source: "page.html" });

describe("the document reader's workers (issue 24)", () => {
  it("keeps a worker that read cleanly, and never reuses one that hit its stack limit", async () => {
    const reader = createDocumentReader();
    try {
      expect((await reader.read(page("One."))).document.text).toBe("One.");
      expect((await reader.read(page("Two."))).document.text).toBe("Two.");
      expect(started).toHaveLength(1);
      const exited = once(started[0]!, "exit");
      // 30,000 unclosed tags overflow the parser's stack: the worker catches the RangeError and
      // reports it, and is then ended rather than kept for the next document.
      await expect(reader.read({ bytes: poisonHtml(), name: "poison.html", source: "poison.html" })).rejects.toThrow("The document is too complex to read.");
      expect((await reader.read(page("Three."))).document.text).toBe("Three.");
      expect(started).toHaveLength(2);
      await exited;
    } finally {
      await reader.close();
    }
  }, 60_000);
});
