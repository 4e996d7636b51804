import { describe, expect, it } from "vitest";
import { receiversClosedAfterEach, setupWebhooks } from "../../test/webhook-harness.js";

const newReceiver = receiversClosedAfterEach();

describe("the transport of an API subscription (issue 24)", () => {
  it("is fetchPublic on every attempt and retry, never the plain fetch; a CLI subscription keeps the plain fetch", async () => {
    const receiver = await newReceiver();
    const used: string[] = [];
    const { dispatcher, send, advanceSeconds, parley, user } = await setupWebhooks(receiver, {
      eventTypes: ["message.received"],
      dispatcher: {
        fetch: async (input, init) => {
          used.push(`fetch ${String(input)}`);
          return fetch(input, init);
        },
        // The pinned transport refuses the rebinding name: a failure that is retried, through it again.
        fetchPublic: async (input) => {
          used.push(`fetchPublic ${String(input)}`);
          throw new TypeError("fetch failed", { cause: Object.assign(new Error("not public"), { code: "ENONPUBLIC" }) });
        },
      },
    });
    const api = await parley.admin.createWebhookSubscription({ userId: user.id, url: `${receiver.url}/api`, eventTypes: ["message.received"], publicOnly: true });
    await send("hello");
    const first = await dispatcher.runOnce();
    expect(first.filter((report) => report.subscriptionId === api.id)).toMatchObject([{ outcome: "retry", error: "request failed: ENONPUBLIC" }]);
    advanceSeconds(60);
    await dispatcher.runOnce();
    expect(used.filter((entry) => entry.endsWith("/api"))).toEqual([`fetchPublic ${receiver.url}/api`, `fetchPublic ${receiver.url}/api`]);
    expect(used.filter((entry) => !entry.endsWith("/api"))).toEqual([`fetch ${receiver.url}`]);
    expect(receiver.requests).toHaveLength(1);
  });
});
