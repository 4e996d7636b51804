import { hash } from "node:crypto";

/**
 * Hex SHA-256 of a text: how API keys are stored and looked up. `crypto.hash` (Node ≥ 20.12)
 * is the one-shot form, about twice as fast as a Hash object per call (every request pays it).
 */
export function sha256Hex(text: string): string {
  return hash("sha256", text, "hex");
}
