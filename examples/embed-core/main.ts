// Embedding Parley's core in your own app: in-memory adapters, the built-in offline embedder,
// and a scripted model standing in for an LLM. Run: npx tsx --conditions=source examples/embed-core/main.ts
import { createLocalEmbedder, createParley, isParleyError } from "@parley/core";
import { createMemorySearchIndex, createMemoryStorage, createScriptedChatModel } from "@parley/core/memory";

/** Runs a short conversation and returns what happened, for the example's test. */
export async function runExample(log: (line: string) => void = console.log) {
  // The scripted model answers with the first line of the context it was given.
  const model = createScriptedChatModel({
    fallback: (request) => `From the docs: ${/\[1\] [^\n]*\n([^\n]*)/.exec(request.system)?.[1] ?? "nothing found"}`,
  });
  const parley = createParley({
    storage: createMemoryStorage(),
    searchIndex: createMemorySearchIndex(),
    embedder: createLocalEmbedder(),
    chatModels: { openai: model },
  });

  // Events reach in-process subscribers once stored (webhooks read the durable outbox instead).
  const events: string[] = [];
  parley.events.on("conversation.started", (event) => events.push(`conversation.started ${event.session_id}`));
  parley.events.on("message.received", (event) => events.push(`message.received ${event.content}`));

  const owner = await parley.admin.createUser({ email: "owner@example.com" });
  const { key } = await parley.admin.createApiKey({ userId: owner.id });
  const bot = await parley.admin.createChatbot({ userId: owner.id, name: "Acme Helper", provider: "openai", model: "gpt-4o-mini" });
  await parley.admin.ingestDocument(bot.id, { source: "refunds.md", title: "Refunds", text: "Refunds are paid within 14 days of the return." });
  await parley.admin.ingestDocument(bot.id, { source: "shipping.md", title: "Shipping", text: "Parcels ship from Rotterdam in 1 to 5 days." });

  const caller = await parley.authenticate(key);
  await parley.admitRequest(caller);
  const { response, sources } = await parley.chat(caller, bot.id, { message: "When do I get my refund?", session_id: "visitor-1" });
  log(`reply: ${response} (sources: ${sources.map((source) => source.title).join(", ")})`);

  // The same chat, streamed: the deltas as the model writes them, then the stored reply.
  const deltas: string[] = [];
  for await (const event of parley.chatStream(caller, bot.id, { message: "How long does shipping take?", session_id: "visitor-1" })) {
    if (event.type === "delta") deltas.push(event.text);
    if (event.type === "reply") log(`streamed in ${deltas.length} deltas: ${event.message.content}`);
  }

  // Errors carry a stable code and a detail that is safe to show.
  let refusal = "";
  try {
    await parley.chat(caller, bot.id, { message: "   " });
  } catch (error) {
    if (isParleyError(error)) refusal = `${error.code}: ${error.detail}`;
  }
  log(`refused: ${refusal}`);
  log(`events: ${events.join(", ")}`);
  return { response, sources, deltas, refusal, events };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop()!)) await runExample();
