import type { Ids } from "../ports/ids.js";

/** Predictable ids for tests: valid UUIDs counting up, and secrets counting up. */
export function createSequentialIds(): Ids {
  let next = 0;
  return {
    uuid: () => {
      next += 1;
      return `00000000-0000-4000-8000-${next.toString(16).padStart(12, "0")}`;
    },
    secret: (byteLength) => {
      next += 1;
      return Buffer.alloc(byteLength, next % 256).toString("base64url");
    },
  };
}
