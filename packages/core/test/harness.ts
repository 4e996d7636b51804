import { createParley, type ParleyOptions } from "../src/parley.js";
import { createMemoryStorage } from "../src/memory/memory-storage.js";
import { createMemorySearchIndex } from "../src/memory/memory-search-index.js";
import { createManualClock } from "../src/memory/manual-clock.js";
import { createSequentialIds } from "../src/memory/sequential-ids.js";
import { createScriptedChatModel } from "../src/memory/scripted-chat-model.js";
import { createLocalEmbedder } from "../src/retrieval/local-embedder.js";
import type { OutboxEvent } from "../src/domain/events.js";

/** A Parley on in-memory adapters with a manual clock, one user with a key, and one chatbot. */
export async function setup(overrides: Partial<ParleyOptions> = {}) {
  const clock = createManualClock("2026-11-21T10:00:00Z");
  const storage = overrides.storage ?? createMemoryStorage();
  const searchIndex = overrides.searchIndex ?? createMemorySearchIndex();
  const model = createScriptedChatModel({ provider: "openai" });
  const parley = createParley({
    storage,
    searchIndex,
    embedder: createLocalEmbedder(),
    chatModels: { openai: model },
    clock,
    ids: createSequentialIds(),
    ...overrides,
  });
  const user = await parley.admin.createUser({ email: "owner@example.com" });
  const { key } = await parley.admin.createApiKey({ userId: user.id });
  const caller = await parley.authenticate(key);
  const chatbot = await parley.admin.createChatbot({
    userId: user.id,
    name: "Acme Helper",
    provider: "openai",
    model: "gpt-test",
    systemPrompt: "You help customers of Acme.",
    fallbackMessage: "Sorry, I have no answer.",
  });
  const published: { type: string; data: unknown }[] = [];
  parley.events.on("*", (type, data) => published.push({ type, data }));
  const outbox = async (): Promise<OutboxEvent[]> => storage.listOutboxEvents({ limit: 1000 });
  return { parley, storage, searchIndex, model, clock, user, key, caller, chatbot, published, outbox };
}

/** Awaits a promise that must reject, and returns its error. */
export async function rejection(promise: Promise<unknown>): Promise<{ code: string; detail: string; retryAfterSeconds?: number }> {
  try {
    await promise;
  } catch (error) {
    return error as { code: string; detail: string; retryAfterSeconds?: number };
  }
  throw new Error("expected a rejection");
}
