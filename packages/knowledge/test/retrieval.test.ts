import { createLocalEmbedder, createParley, type DocumentInput, type KnowledgeItem } from "@parley/core";
import { createManualClock, createMemorySearchIndex, createMemoryStorage, createScriptedChatModel, createSequentialIds } from "@parley/core/memory";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createKnowledgeSources } from "../src/index.js";
import { fixture } from "./site-server.js";

const folder = mkdtempSync(join(tmpdir(), "parley-retrieval-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** A Parley on in-memory adapters with one chatbot that knows the manual PDF and the handbook DOCX. */
async function chatbotWithFixtures() {
  const model = createScriptedChatModel();
  const parley = createParley({
    storage: createMemoryStorage(),
    searchIndex: createMemorySearchIndex(),
    embedder: createLocalEmbedder(),
    chatModels: { openai: model },
    clock: createManualClock("2026-11-24T01:00:00Z"),
    ids: createSequentialIds(),
  });
  const user = await parley.admin.createUser({ email: "owner@example.com" });
  const caller = await parley.authenticate((await parley.admin.createApiKey({ userId: user.id })).key);
  const chatbot = await parley.admin.createChatbot({ userId: user.id, name: "Acme Helper", provider: "openai", model: "gpt-test", systemPrompt: "You help customers of Acme." });
  const files = ["manual.pdf", "handbook.docx"].map((name) => {
    const path = join(folder, name);
    writeFileSync(path, fixture(name));
    return { name: name === "manual.pdf" ? "Manual.pdf" : "Handbook.docx", path };
  });
  const documents: DocumentInput[] = [];
  for await (const item of createKnowledgeSources().read({ kind: "files", files }, { signal: new AbortController().signal }) as AsyncIterable<KnowledgeItem>) {
    if ("error" in item) throw new Error(item.error);
    documents.push(item.document);
  }
  await parley.admin.ingestDocuments(chatbot.id, documents);
  /** The context the model was given for a question, as its numbered entries. */
  const contextFor = async (message: string) => {
    await parley.chat(caller, chatbot.id, { message });
    const system = model.requests.at(-1)!.system;
    const context = system.slice(system.indexOf("<context>\n") + "<context>\n".length, system.indexOf("\n</context>"));
    return context.split(/\n\n(?=\[\d+\] )/);
  };
  return { contextFor };
}

describe("retrieval over read documents", () => {
  it("finds the fact that lives only on page 3 of the PDF, and the chunk says which page", async () => {
    const { contextFor } = await chatbotWithFixtures();
    const [best] = await contextFor("Under which reference is the heating element warranty?");
    expect(best).toBe(
      "[1] Manual.pdf\n(page 3) Cleaning and warranty. Descale the kettle with citric acid every 45 days in hard-water areas.\n\n" +
        "The heating element carries a seven-year warranty under reference ZEPHYR-7; keep your receipt to claim it.",
    );
  });

  it("finds the fact that lives only in the DOCX table, labelled with its heading", async () => {
    const { contextFor } = await chatbotWithFixtures();
    const [best] = await contextFor("What is the phone line of the Platinum support plan?");
    expect(best).toBe(
      "[1] Handbook.docx\n(Support plans) Plan | Response time | Phone line\nStandard | 2 working days | none, email only\nPlatinum | 15 minutes | +44 20 7946 0321, code QUASAR-12",
    );
  });
});
