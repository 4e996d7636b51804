// The benchmark's database: one user on a plan with a quota that cannot run out, many API keys,
// one chatbot and its knowledge base, ingested through the same core call as `parley ingest`.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../src/runtime/config.js";
import { openParley } from "../src/runtime/open-parley.js";
import { seededRandom, supportDocument } from "./corpus.js";

/** What the load generator needs to know about the seeded database. */
export interface Seeded {
  chatbotId: string;
  keys: string[];
  chunks: number;
  documents: number;
  ingestSeconds: number;
}

/** Paragraphs per document: one chunk each (see corpus.ts). */
const PARAGRAPHS_PER_DOCUMENT = 50;

/** A knowledge base to ingest: documents, produced until the chatbot holds enough chunks. */
type DocumentSource = (index: number, paragraphsWanted: number) => { source: string; title: string; text: string } | undefined;

const jsonLines = (path: string) =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** The generated support knowledge base (corpus.ts). */
function generatedDocuments(): DocumentSource {
  const random = seededRandom(20_250_601);
  return (index, wanted) => supportDocument(random, index, Math.min(PARAGRAPHS_PER_DOCUMENT, wanted));
}

/** A BEIR-format folder (`corpus.jsonl` with `_id`, `title`, `text`; `queries.jsonl` with `text`): real text and real questions. */
export function beirCorpus(folder: string): { documents: DocumentSource; questions: string[] } {
  const corpus = jsonLines(join(folder, "corpus.jsonl"));
  const documents: DocumentSource = (index) => {
    const entry = corpus[index];
    return entry && { source: String(entry._id), title: String(entry.title ?? ""), text: String(entry.text ?? "") };
  };
  return { documents, questions: jsonLines(join(folder, "queries.jsonl")).map((entry) => String(entry.text)) };
}

/** Seeds the database the environment names. */
export async function seedDatabase(
  env: Record<string, string>,
  options: { chunks: number; keys: number; monthlyMessages: number; documents?: DocumentSource },
): Promise<Seeded> {
  const runtime = openParley(loadConfig(env));
  try {
    const { admin } = runtime.parley;
    await admin.setPlan("bench", options.monthlyMessages);
    const user = await admin.createUser({ email: "bench@example.com", plan: "bench" });
    const keys: string[] = [];
    for (let index = 0; index < options.keys; index += 1) keys.push((await admin.createApiKey({ userId: user.id, name: `bench-${index}` })).key);
    const chatbot = await admin.createChatbot({
      userId: user.id,
      name: "Appliance Support",
      provider: "openai",
      model: "gpt-bench",
      systemPrompt: "You answer questions from owners of our kitchen appliances, using the support articles provided.",
    });
    const next = options.documents ?? generatedDocuments();
    const started = performance.now();
    let chunks = 0;
    let documents = 0;
    while (chunks < options.chunks) {
      const document = next(documents, options.chunks - chunks);
      if (document === undefined) break; // the corpus ran out
      chunks += (await admin.ingestDocument(chatbot.id, document)).chunks;
      documents += 1;
    }
    return { chatbotId: chatbot.id, keys, chunks, documents, ingestSeconds: (performance.now() - started) / 1000 };
  } finally {
    runtime.close();
  }
}
