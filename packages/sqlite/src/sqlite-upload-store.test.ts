import { describe, expect, it } from "vitest";
import { openDatabase } from "./database.js";
import { closeAfterEach, temporaryPaths } from "./sqlite-storage-test-fixtures.js";
import { createSqliteUploadStore, UPLOAD_PART_BYTES } from "./sqlite-upload-store.js";

const freshPath = temporaryPaths();
const track = closeAfterEach();
const AT = 1_800_000_000_000_000;

/** A file of `size` bytes that differ from part to part, so a part out of order would show. */
function fileOf(size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let index = 0; index < size; index++) bytes[index] = (index * 7 + Math.floor(index / UPLOAD_PART_BYTES)) % 251;
  return bytes;
}

/** Counts the event loop's turns (setImmediate after setImmediate) until stopped. */
function countTurns() {
  let turns = 0;
  let running = true;
  const turn = () => {
    if (!running) return;
    turns += 1;
    setImmediate(turn);
  };
  setImmediate(turn);
  return () => {
    running = false;
    return turns;
  };
}

function open() {
  const database = track(openDatabase({ path: freshPath() }));
  return { database, store: createSqliteUploadStore(database), parts: () => database.prepare("SELECT count(*) FROM upload_parts").pluck().get() as number };
}

describe("the SQLite upload store", () => {
  it("writes a file in parts, a turn of the event loop between them, and reads it back whole", async () => {
    const { store, parts } = open();
    const file = fileOf(3 * UPLOAD_PART_BYTES + 1_234);
    const stopSaving = countTurns();
    await store.save({ id: "u1", chatbotId: "b1", name: "big.pdf", content: file, at: AT });
    // Four parts: the other turns ran between them, not after the whole file.
    expect(stopSaving()).toBeGreaterThanOrEqual(3);
    expect(parts()).toBe(4);
    const stopReading = countTurns();
    const read = await store.read("u1");
    expect(stopReading()).toBeGreaterThanOrEqual(3);
    // (Compared as bytes: a deep equality of 1.5 million elements would take the test's whole time.)
    expect(read?.byteLength).toBe(file.byteLength);
    expect(Buffer.compare(Buffer.from(read!), Buffer.from(file))).toBe(0);
    expect(await store.read("unknown")).toBeNull();
  });

  it("reads an empty file and an upload stored whole before parts (migration 010's rows)", async () => {
    const { database, store } = open();
    await store.save({ id: "empty", chatbotId: "b1", name: "empty.txt", content: new Uint8Array(0), at: AT });
    expect(await store.read("empty")).toEqual(new Uint8Array(0));
    database.prepare("INSERT INTO uploads (id, chatbot_id, name, content, created_at) VALUES ('old', 'b1', 'old.txt', ?, ?)").run(Buffer.from("kept whole"), AT);
    expect(Buffer.from((await store.read("old"))!).toString()).toBe("kept whole");
  });

  it("has no upload until the last part is written: a save cut half-way leaves parts that a later save sweeps away", async () => {
    const { database, store, parts } = open();
    // What a crash after two parts leaves: parts, no uploads row.
    const insertPart = database.prepare("INSERT INTO upload_parts (upload_id, part, bytes, created_at) VALUES ('cut', ?, ?, ?)");
    insertPart.run(0, Buffer.from("a"), AT);
    insertPart.run(1, Buffer.from("b"), AT);
    expect(await store.read("cut")).toBeNull();
    // Within the hour a save may still be writing them: they stay.
    await store.save({ id: "next", chatbotId: "b1", name: "n.txt", content: fileOf(10), at: AT + 1_000_000 });
    expect(parts()).toBe(3);
    // After it, they are a crash's leftovers.
    await store.save({ id: "later", chatbotId: "b1", name: "l.txt", content: fileOf(10), at: AT + 2 * 3_600_000_000 });
    expect(database.prepare("SELECT DISTINCT upload_id FROM upload_parts ORDER BY upload_id").pluck().all()).toEqual(["later", "next"]);
  });

  it("removes an upload's parts with it, and a read that finds a part gone says the upload is gone", async () => {
    const { database, store, parts } = open();
    await store.save({ id: "u1", chatbotId: "b1", name: "a.pdf", content: fileOf(2 * UPLOAD_PART_BYTES), at: AT });
    await store.save({ id: "u2", chatbotId: "b1", name: "b.pdf", content: fileOf(10), at: AT });
    await store.remove(["u1"]);
    expect(database.prepare("SELECT DISTINCT upload_id FROM upload_parts").pluck().all()).toEqual(["u2"]);
    database.prepare("DELETE FROM upload_parts WHERE upload_id = 'u2'").run();
    expect(await store.read("u2")).toBeNull();
    await store.remove(["u2"]);
    expect(parts()).toBe(0);
  });
});
