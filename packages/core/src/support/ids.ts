import { randomBytes, randomUUID } from "node:crypto";
import type { Ids } from "../ports/ids.js";

/** Random UUIDs and secrets from the operating system's CSPRNG. */
export const randomIds: Ids = {
  uuid: () => randomUUID(),
  secret: (byteLength) => randomBytes(byteLength).toString("base64url"),
};

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a string is a UUID (any version, either case). */
export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}
