import type { LookupAddress } from "node:dns";
import { describe, expect, it } from "vitest";
import type { LookupFunction } from "@parley/knowledge";
import { createWebhookUrlCheck } from "./webhook-url-check.js";

/** A DNS that knows a few names, and says ENOTFOUND for the rest. */
const fakeDns: LookupFunction = (hostname, _options, callback) => {
  const known: Record<string, string[]> = {
    "hooks.example.com": ["93.184.216.34"],
    "sneaky.example.com": ["93.184.216.34", "10.0.0.7"],
    "localhost.example.com": ["127.0.0.1"],
  };
  const addresses = known[hostname];
  if (!addresses) return callback(Object.assign(new Error("not found"), { code: "ENOTFOUND" }), []);
  callback(null, addresses.map((address): LookupAddress => ({ address, family: address.includes(":") ? 6 : 4 })));
};

const NOT_PUBLIC = "url: must be at a public address; this server sends no webhooks to loopback, private, link-local or metadata addresses unless PARLEY_ALLOW_PRIVATE_URLS=true";

describe("the webhook URL check of the operator API", () => {
  const check = createWebhookUrlCheck({ lookup: fakeDns });

  it("lets a public address or a name with only public addresses through", async () => {
    await expect(check("https://hooks.example.com/parley")).resolves.toBeUndefined();
    await expect(check("http://93.184.216.34:8080/hook")).resolves.toBeUndefined();
  });

  it.each([
    "http://127.0.0.1:9000/hook",
    "http://10.1.2.3/hook",
    "http://169.254.169.254/latest/meta-data",
    "http://[::1]/hook",
    "http://[fd00:ec2::254]/hook",
    "http://[::ffff:127.0.0.1]/hook",
    "https://localhost.example.com/hook",
    "https://sneaky.example.com/hook",
  ])("refuses %s with the rule in words", async (url) => {
    await expect(check(url)).rejects.toMatchObject({ code: "invalid_request", detail: NOT_PUBLIC });
  });

  it("says so when the name does not resolve", async () => {
    await expect(check("https://nowhere.example.com/hook")).rejects.toMatchObject({ detail: "url: its host name could not be resolved" });
  });
});
