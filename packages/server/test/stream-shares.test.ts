import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/runtime/config.js";
import { openParley } from "../src/runtime/open-parley.js";
import { startOperatorServer, type OperatorServer } from "./admin-test-support.js";
import { openEventStream } from "./sse-client.js";

const poll = { timeout: 10_000, interval: 10 };
const TOO_MANY = "Too many event streams open for this API key: at most 5 at once. Close one before opening another.";

let server: OperatorServer;
beforeAll(async () => {
  // No heartbeat or key re-check while these tests run: a stream can end only through what the test does.
  server = await startOperatorServer({ heartbeatMs: 3_600_000, keyRecheckMs: 3_600_000 });
});
afterAll(async () => {
  await server?.close();
});

describe("event streams per key (issue 24)", () => {
  it("refuses a key's sixth stream with 429 while other keys and tenants still open theirs, and lets one in when one closes", async () => {
    const { alice, bob } = server;
    const five = await Promise.all(Array.from({ length: 5 }, () => openEventStream(server.url, alice.adminKey)));
    for (const stream of five) expect(stream.status).toBe(200);
    const sixth = await openEventStream(server.url, alice.adminKey);
    await sixth.ended;
    expect({ status: sixth.status, body: JSON.parse(sixth.body) }).toEqual({ status: 429, body: { detail: TOO_MANY } });
    // Another tenant notices nothing, nor does another key of the same user.
    const bobs = await openEventStream(server.url, bob.adminKey);
    expect(bobs.status).toBe(200);
    const second = await server.api(alice.adminKey, "POST", "/v1/admin/keys", { name: "second", scope: "admin" });
    const otherKey = await openEventStream(server.url, second.json.key as string);
    expect(otherKey.status).toBe(200);
    expect((await server.api(bob.adminKey, "GET", "/v1/admin/chatbots")).status).toBe(200);
    // A closed stream frees its place.
    five[0]!.drop();
    await expect.poll(async () => {
      const again = await openEventStream(server.url, alice.adminKey);
      if (again.status !== 200) await again.ended;
      else five.push(again);
      return again.status;
    }, poll).toBe(200);
    for (const stream of [...five, bobs, otherKey]) stream.drop();
  });
});

describe("revoking the key of an open stream (issue 24)", () => {
  it("ends every stream of the key at once, with no heartbeat or re-check to wait for", async () => {
    const { api, alice } = server;
    const created = await api(alice.adminKey, "POST", "/v1/admin/keys", { name: "console tab", scope: "admin" });
    const streams = await Promise.all([openEventStream(server.url, created.json.key as string), openEventStream(server.url, created.json.key as string)]);
    const others = await openEventStream(server.url, alice.adminKey);
    for (const stream of streams) await expect.poll(() => stream.comments, poll).toContain("connected");
    expect((await api(alice.adminKey, "DELETE", `/v1/admin/keys/${created.json.id as string}`)).status).toBe(204);
    // The heartbeat and the re-check are an hour away: only the revocation itself can end them.
    await Promise.all(streams.map((stream) => stream.ended));
    // The same user's other key keeps its stream.
    await server.chat(alice, "after-revoke", "Still streaming?");
    await expect.poll(() => others.events.map((event) => event.event), poll).toContain("message.received");
    others.drop();
  });

  it("ends the stream of a key revoked by another process within the once-a-second check", async () => {
    const own = await startOperatorServer({ keyRecheckMs: 50 });
    try {
      const created = await own.api(own.alice.adminKey, "POST", "/v1/admin/keys", { name: "cli revoked", scope: "admin" });
      const stream = await openEventStream(own.url, created.json.key as string);
      await expect.poll(() => stream.comments, poll).toContain("connected");
      // `parley key revoke` runs in its own process: another Parley on the same database, whose revocation this server is not told of.
      const elsewhere = openParley(loadConfig(own.context.env), { log: () => {} });
      await elsewhere.parley.admin.revokeApiKey(created.json.id as string);
      elsewhere.close();
      await stream.ended;
    } finally {
      await own.close();
    }
  });
});

describe("PARLEY_MAX_STREAMS_PER_KEY (issue 24)", () => {
  it("sets the cap: with 2, a key's third stream is refused and says so", async () => {
    const capped = await startOperatorServer({ heartbeatMs: 3_600_000, keyRecheckMs: 3_600_000, env: { PARLEY_MAX_STREAMS_PER_KEY: "2" } });
    try {
      const two = await Promise.all([openEventStream(capped.url, capped.alice.adminKey), openEventStream(capped.url, capped.alice.adminKey)]);
      for (const stream of two) expect(stream.status).toBe(200);
      const third = await openEventStream(capped.url, capped.alice.adminKey);
      await third.ended;
      expect({ status: third.status, body: JSON.parse(third.body) }).toEqual({
        status: 429,
        body: { detail: "Too many event streams open for this API key: at most 2 at once. Close one before opening another." },
      });
      for (const stream of two) stream.drop();
    } finally {
      await capped.close();
    }
  });
});
