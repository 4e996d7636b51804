import { createHash } from "node:crypto";

/** Hex SHA-256 of a text: how API keys are stored and looked up. */
export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}
