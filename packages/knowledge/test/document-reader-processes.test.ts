import type * as ChildProcesses from "node:child_process";
import type { ChildProcess, SpawnOptions } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it, vi } from "vitest";
import { createDocumentReader, readDocument } from "../src/index.js";
import { poisonHtml } from "./hostile-documents.js";

// Every process the reader starts, with its arguments and options, to tell a reused reader
// from a fresh one and to see the limits it was started with.
const started = vi.hoisted(() => [] as { child: ChildProcess; args: readonly string[]; options: SpawnOptions }[]);
vi.mock("node:child_process", async (importOriginal) => {
  const actual = await importOriginal<typeof ChildProcesses>();
  const spawn = (command: string, args: readonly string[], options: SpawnOptions) => {
    const child = actual.spawn(command, args, options);
    started.push({ child, args, options });
    return child;
  };
  return { ...actual, spawn };
});

const page = (text: string) => ({ bytes: Buffer.from(`<p>${text}</p>`), name: "page.html", source: "page.html" });

describe("the document reader's processes (issue 24)", () => {
  it("reads in another process, started with its heap, young-generation and stack limits and without the server's secrets", async () => {
    process.env.OPENAI_API_KEY = "sk-not-for-readers";
    const reader = createDocumentReader({ memoryMb: 96 });
    try {
      expect((await reader.read(page("One."))).document.text).toBe("One.");
      expect(started).toHaveLength(1);
      const { child, args, options } = started.splice(0)[0]!;
      expect(child.pid).not.toBe(process.pid);
      expect(args).toEqual(expect.arrayContaining(["--max-old-space-size=96", "--max-semi-space-size=2", "--stack-size=3984"]));
      expect(Object.keys(options.env ?? {})).not.toContain("OPENAI_API_KEY");
    } finally {
      delete process.env.OPENAI_API_KEY;
      await reader.close();
    }
  }, 60_000);

  it("keeps a process that read cleanly, and never reuses one that hit its stack limit", async () => {
    const reader = createDocumentReader();
    try {
      expect((await reader.read(page("One."))).document.text).toBe("One.");
      expect((await reader.read(page("Two."))).document.text).toBe("Two.");
      expect(started).toHaveLength(1);
      const first = started[0]!.child;
      // 30,000 unclosed tags overflow the parser's stack: the process catches the RangeError and
      // reports it, and is then killed rather than kept for the next document.
      const exited = once(first, "exit");
      await expect(reader.read({ bytes: poisonHtml(), name: "poison.html", source: "poison.html" })).rejects.toThrow("The document is too complex to read.");
      expect((await reader.read(page("Three."))).document.text).toBe("Three.");
      expect(started).toHaveLength(2);
      expect(await exited).toEqual([null, "SIGKILL"]);
    } finally {
      await reader.close();
    }
  }, 60_000);

  it("keeps one idle process by default: of two that read at once, one ends", async () => {
    started.splice(0);
    const reader = createDocumentReader();
    try {
      const texts = await Promise.all([reader.read(page("One.")), reader.read(page("Two."))]);
      expect(texts.map((read) => read.document.text)).toEqual(["One.", "Two."]);
      expect(started).toHaveLength(2);
      const children = started.map((entry) => entry.child);
      // The one released last finds the idle place taken and is killed as it is released; the other reads the next document.
      expect(children.filter((child) => child.killed)).toHaveLength(1);
      expect((await reader.read(page("Three."))).document.text).toBe("Three.");
      expect(started).toHaveLength(2);
    } finally {
      started.splice(0);
      await reader.close();
    }
  }, 60_000);

  it("sends a sectioned document's text once: the server joins its sections' texts again", async () => {
    started.splice(0);
    const reader = createDocumentReader();
    const html = "<title>Guide</title><h1>Guide</h1><p>Start here.</p><h2>Setup</h2><p>Plug it in.</p><h2>Care</h2><p>Wipe it dry.</p>";
    const input = { bytes: Buffer.from(html), name: "guide.html", source: "guide.html" };
    try {
      const warm = await reader.read(page("Warm."));
      expect(warm.document.text).toBe("Warm.");
      const answers: unknown[] = [];
      started[0]!.child.on("message", (message) => answers.push(message));
      const read = await reader.read(input);
      expect(read).toEqual(await readDocument(input));
      expect(read.document.sections!.length).toBeGreaterThan(1);
      expect(answers).toEqual([{ result: expect.objectContaining({ document: expect.not.objectContaining({ text: expect.anything() }) }) }]);
    } finally {
      started.splice(0);
      await reader.close();
    }
  }, 60_000);
});
