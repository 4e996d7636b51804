import { randomBytes } from "node:crypto";
import { linkSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { MIN_MASTER_KEY_BYTES } from "@parley/core";

/** Where the master key of webhook signing secrets comes from. */
export interface MasterKeySource {
  /** `PARLEY_SECRET_KEY`, already checked to be long enough; wins when set. */
  secretKey: string | undefined;
  /** The database path: the key file is this path plus `.key`. */
  databasePath: string;
}

/** The key file that goes with a database. */
export const keyFilePath = (databasePath: string) => `${databasePath}.key`;

/**
 * The master key webhook secrets are derived from: `PARLEY_SECRET_KEY` when set, else the key
 * file beside the database. The key is the text itself, so the file's content works unchanged
 * as `PARLEY_SECRET_KEY`. An in-memory database gets a key that lives as long as the process.
 * A missing key file is an error, never silently replaced: a new key would change every
 * subscription's secret, and receivers would reject every delivery.
 */
export function loadWebhookMasterKey(source: MasterKeySource): Uint8Array {
  if (source.secretKey !== undefined) return Buffer.from(source.secretKey, "utf8");
  if (isInMemory(source.databasePath)) return inMemoryKey;
  const path = keyFilePath(source.databasePath);
  const text = readKeyFile(path);
  if (text === undefined) throw new Error(`No webhook master key: set PARLEY_SECRET_KEY, or restore the key file ${path}.`);
  return Buffer.from(text, "utf8");
}

/**
 * Creates the key file (32 random bytes as base64, mode 0600) unless `PARLEY_SECRET_KEY` is set
 * or the file exists. Only creating a subscription calls this: before the first one, no secret
 * depends on the key yet.
 */
export function ensureWebhookMasterKey(source: MasterKeySource): void {
  if (source.secretKey !== undefined || isInMemory(source.databasePath)) return;
  const path = keyFilePath(source.databasePath);
  if (readKeyFile(path) === undefined) createKeyFile(path);
}

const isInMemory = (databasePath: string) => databasePath === ":memory:" || databasePath === "";
const inMemoryKey = randomBytes(MIN_MASTER_KEY_BYTES);

function readKeyFile(path: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8").trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  if (Buffer.byteLength(text) < MIN_MASTER_KEY_BYTES) throw new Error(`The key file ${path} holds no key (fewer than ${MIN_MASTER_KEY_BYTES} characters).`);
  return text;
}

/**
 * Writes a new key to a temporary file, then links it into place: the link fails if another
 * process created the key meanwhile (whose key then wins), and no one ever reads a half-written file.
 */
function createKeyFile(path: string): void {
  const text = randomBytes(MIN_MASTER_KEY_BYTES).toString("base64");
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  writeFileSync(temporary, `${text}\n`, { mode: 0o600, flag: "wx" });
  try {
    linkSync(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    unlinkSync(temporary);
  }
}
