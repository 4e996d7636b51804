import type { DocumentInput, Provider } from "@parley/core";
import { createKnowledgeSources } from "@parley/knowledge";
import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { dirname, extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describeDatabase, type ServerConfig } from "./config.js";
import type { ParleyRuntime } from "./open-parley.js";

/** The demo's provider and model: the first provider the environment makes available. */
export function demoProvider(config: ServerConfig): { provider: Provider; model: string } {
  if (config.providers.openai.apiKey) return { provider: "openai", model: "gpt-4o-mini" };
  if (config.providers.anthropic.apiKey) return { provider: "anthropic", model: "claude-haiku-4-5" };
  return { provider: "ollama", model: "llama3.2" };
}

/** What the quickstart created, for the banner. */
export interface DemoSeed {
  /** The demo user's id and email: what `parley key create --user` needs to recover a lost key. */
  user: { id: string; email: string };
  /** The demo user's keys (id, name, scope), for the banner; the secrets are `key` and `adminKey`. */
  keys: { id: string; name: string; scope: string }[];
  key: string;
  /** An admin-scoped key for the console (docs/design.md §9, §11). */
  adminKey: string;
  chatbotId: string;
  provider: Provider;
  model: string;
  documents: number;
}

/** The repository's `examples/quickstart` folder, found from this module's location. */
export function quickstartFolder(): string | undefined {
  for (let folder = dirname(fileURLToPath(import.meta.url)); ; folder = dirname(folder)) {
    const candidate = join(folder, "examples", "quickstart");
    if (existsSync(candidate)) return candidate;
    if (dirname(folder) === folder) return undefined;
  }
}

/**
 * On an empty database, creates a demo user, a demo API key and a demo chatbot whose knowledge
 * is `examples/quickstart`. Returns null when the database already has users.
 */
export async function seedQuickstart(runtime: ParleyRuntime, config: ServerConfig, folder = quickstartFolder()): Promise<DemoSeed | null> {
  if ((await runtime.userCount()) > 0) return null;
  const { parley } = runtime;
  const { provider, model } = demoProvider(config);
  const user = await parley.admin.createUser({ email: "demo@parley.local" });
  const { key, apiKey: chatKey } = await parley.admin.createApiKey({ userId: user.id, name: "demo" });
  const { key: adminKey, apiKey: consoleKey } = await parley.admin.createApiKey({ userId: user.id, name: "console", scope: "admin" });
  const chatbot = await parley.admin.createChatbot({
    userId: user.id,
    name: "Kettlebird Support",
    provider,
    model,
    systemPrompt:
      "You are the customer support assistant of Kettlebird, a maker of smart kettles. Be friendly and brief, and give exact figures from the documentation.",
    fallbackMessage: "Sorry, I can't answer that right now. You can reach our team at support@kettlebird.example.",
  });
  const documents = folder ? await readQuickstartDocuments(folder) : [];
  await parley.admin.ingestDocuments(chatbot.id, documents);
  // The chat widget on, for the demo page this server serves on its own origin (docs/design.md §14).
  await parley.admin.changeChatbot(chatbot.id, {
    widget: {
      enabled: true,
      welcome_message: "Hi! I'm Kettlebird's assistant. Ask me anything about your kettle.",
      starter_questions: ["How long is the warranty?", "How do I descale my kettle?"],
    },
  });
  const keys = [chatKey, consoleKey].map(({ id, name, scope }) => ({ id, name, scope }));
  return { user: { id: user.id, email: user.email }, keys, key, adminKey, chatbotId: chatbot.id, provider, model, documents: documents.length };
}

/** The document types of the examples folder. */
const QUICKSTART_EXTENSIONS = new Set([".md", ".txt", ".html"]);

/**
 * The examples folder's documents, read as `parley ingest` reads files (the knowledge package, in
 * its reader processes), each named by its file name: the demo's sources read the same on every machine.
 */
async function readQuickstartDocuments(folder: string): Promise<DocumentInput[]> {
  const names = (await readdir(folder)).filter((name) => QUICKSTART_EXTENSIONS.has(extname(name).toLowerCase())).sort();
  const documents: DocumentInput[] = [];
  const request = { kind: "files" as const, files: names.map((name) => ({ name, path: join(folder, name) })) };
  for await (const item of createKnowledgeSources().read(request, { signal: new AbortController().signal })) {
    if ("error" in item) throw new Error(`The quickstart document ${item.source} could not be read: ${item.error}`);
    documents.push(item.document);
  }
  return documents;
}

/** The start-up banner: where the server listens, the demo's key and curl commands, and what the provider needs. */
export function banner(url: string, config: ServerConfig, seed: DemoSeed | null, ollamaReachable: boolean | undefined): string {
  const lines = [`Parley is listening on ${url} (database ${describeDatabase(config)}).`];
  if (seed) {
    lines.push(
      "",
      "Created a demo user, API key and chatbot on this new database. The key is shown only this once:",
      "",
      `  export PARLEY_KEY=${seed.key}`,
      "",
      "Try the three routes:",
      "",
      `  curl -s ${url}/v1/chatbots -H "Authorization: Bearer $PARLEY_KEY"`,
      `  curl -s ${url}/v1/chatbots/${seed.chatbotId} -H "Authorization: Bearer $PARLEY_KEY"`,
      `  curl -s ${url}/v1/chatbots/${seed.chatbotId}/chat -H "Authorization: Bearer $PARLEY_KEY" \\`,
      `    -H "Content-Type: application/json" -d '{"message": "How long is the warranty?", "session_id": "demo"}'`,
      "",
      `Open the console at ${url}/console and sign in with this admin key (also shown only this once):`,
      "",
      `  ${seed.adminKey}`,
      "",
      `See the demo chatbot in the chat widget, as a visitor of a website would: ${url}/widget/${seed.chatbotId}/demo`,
      "",
      `The demo chatbot answers with ${seed.provider} (model ${seed.model}) from ${seed.documents} documents in examples/quickstart.`,
      "",
      `The demo user is ${seed.user.email}, id ${seed.user.id}, with the keys:`,
      "",
      ...seed.keys.map((each) => `  ${each.id}  ${each.name} (${each.scope})`),
      "",
      "Lost the admin key, or revoked it? Issue another (parley user list shows every user's id):",
      "",
      `  npm run parley -- key create --user ${seed.user.id} --scope admin`,
    );
    if (seed.provider === "ollama") {
      lines.push(
        ollamaReachable
          ? `Ollama answers at ${config.providers.ollama.host}; make sure the model is pulled: ollama pull ${seed.model}`
          : `Ollama does not answer at ${config.providers.ollama.host}, so chat will answer 500 until you start it ` +
              `(ollama serve, then ollama pull ${seed.model}), or set OPENAI_API_KEY or ANTHROPIC_API_KEY and start again on a new database.`,
      );
    }
  }
  return lines.join("\n");
}

/** Whether an Ollama server answers at the host, within half a second. */
export async function ollamaAnswers(host: string): Promise<boolean> {
  const base = /^https?:\/\//.test(host) ? host : `http://${host}`;
  try {
    const response = await fetch(new URL("/api/version", base), { signal: AbortSignal.timeout(500) });
    return response.ok;
  } catch {
    return false;
  }
}
