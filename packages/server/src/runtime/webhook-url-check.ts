import { isIP } from "node:net";
import { invalidRequest } from "@parley/core";
import { createPublicLookup, isPublicAddress, type LookupFunction } from "@parley/knowledge";

const NOT_PUBLIC = "url: must be at a public address; this server sends no webhooks to loopback, private, link-local or metadata addresses unless PARLEY_ALLOW_PRIVATE_URLS=true";

/**
 * The check of a webhook URL made through the operator API (docs/design.md §9), run when the
 * subscription is made and again before each delivery: its host, or every address its name
 * resolves to, must be public. The same address rule as for fetched knowledge (`isPublicAddress`).
 */
export function createWebhookUrlCheck(options: { lookup?: LookupFunction } = {}): (url: string) => Promise<void> {
  const lookup = createPublicLookup(options.lookup);
  return async (url) => {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
    if (isIP(host) !== 0) {
      if (!isPublicAddress(host)) throw invalidRequest(NOT_PUBLIC);
      return;
    }
    await new Promise<void>((resolve, reject) =>
      lookup(host, { all: true }, (error) => {
        if (!error) return resolve();
        reject(invalidRequest(error.code === "ENONPUBLIC" ? NOT_PUBLIC : "url: its host name could not be resolved"));
      }),
    );
  };
}
