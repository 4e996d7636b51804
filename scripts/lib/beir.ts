import { readFileSync } from "node:fs";
import { join } from "node:path";

/** A BEIR collection: corpus, queries and one qrels file. Ids stay strings. */
export interface BeirCollection {
  documents: { id: string; title: string; text: string }[];
  queries: Map<string, string>;
  /** query id → relevant document id → graded relevance. */
  qrels: Map<string, Map<string, number>>;
}

const jsonLines = (path: string) =>
  readFileSync(path, "utf8")
    .split(/\r?\n/)
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** Loads a BEIR folder; `qrelsFile` is relative to it (BEIR's own layout is qrels/test.tsv). */
export function loadBeir(folder: string, qrelsFile: string): BeirCollection {
  const documents = jsonLines(join(folder, "corpus.jsonl")).map((row) => ({
    id: String(row._id),
    title: String(row.title ?? ""),
    text: String(row.text ?? ""),
  }));
  const queries = new Map(jsonLines(join(folder, "queries.jsonl")).map((row) => [String(row._id), String(row.text)]));
  const qrels = new Map<string, Map<string, number>>();
  const lines = readFileSync(join(folder, qrelsFile), "utf8").split(/\r?\n/).slice(1);
  for (const line of lines) {
    const [queryId, documentId, score] = line.split("\t");
    if (queryId === undefined || documentId === undefined || score === undefined) continue;
    if (Number(score) <= 0) continue;
    if (!qrels.has(queryId)) qrels.set(queryId, new Map());
    qrels.get(queryId)!.set(documentId, Number(score));
  }
  return { documents, queries, qrels };
}
