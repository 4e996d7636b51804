import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, environment } from "./harness.js";
import { startCluster } from "./scaleout/scaleout-cluster.js";

// Three server processes on one PostgreSQL and one Redis (docs/design.md §13): every guarantee of
// the spec holds across them, the search index included (in-process vectors on a server without
// pgvector).

const storageUrl = process.env.PARLEY_TEST_DATABASE_URL?.trim() || undefined;
const redisUrl = process.env.PARLEY_TEST_REDIS_URL?.trim() || undefined;
if (storageUrl === undefined || redisUrl === undefined) {
  console.warn("skipped: three server processes on one PostgreSQL and one Redis: PARLEY_TEST_DATABASE_URL and PARLEY_TEST_REDIS_URL are not both set.");
}
const KEY_LIMIT = 50;
const CONVERSATION_LIMIT = 20;

/**
 * A webhook receiver that answers each request after `delayMs` (so attempts are in flight when a
 * process dies) and records each webhook-id. `onRequest` is told each request's client port as it
 * arrives, before it is answered.
 */
async function startSlowReceiver(delayMs: number) {
  const ids: string[] = [];
  const receiver = {
    ids,
    url: "",
    port: 0,
    onRequest: (_clientPort: number) => {},
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      ids.push(String(request.headers["webhook-id"]));
      receiver.onRequest(request.socket.remotePort!);
      setTimeout(() => response.writeHead(200).end(), delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}/hook`;
  return receiver;
}

/**
 * Whether process `pid` holds the IPv4 TCP connection from local port `port` to `remotePort`
 * (Linux: its fds' socket inodes in /proc/net/tcp; both ports, as a local port may serve several
 * connections to different peers).
 */
function holdsConnection(pid: number, port: number, remotePort: number): boolean {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match) inodes.add(match[1]!);
    } catch {
      // The fd closed meanwhile.
    }
  }
  const hex = (value: number) => `:${value.toString(16).toUpperCase().padStart(4, "0")}`;
  return readFileSync("/proc/net/tcp", "utf8")
    .split("\n")
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .some((fields) => fields[1]?.endsWith(hex(port)) === true && fields[2]?.endsWith(hex(remotePort)) === true && inodes.has(fields[9]!));
}

/** Waits until `condition` holds, polling (the processes deliver in the background). */
async function eventually(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("The condition did not hold in time.");
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe.skipIf(storageUrl === undefined || redisUrl === undefined)(
  "three server processes on one PostgreSQL and one Redis (needs PARLEY_TEST_DATABASE_URL and PARLEY_TEST_REDIS_URL)",
  () => {
    let context: Awaited<ReturnType<typeof environment>>;
    let cluster: Awaited<ReturnType<typeof startCluster>>;
    let receiver: Awaited<ReturnType<typeof startSlowReceiver>>;
    const urls = () => cluster.members.map((member) => member.url);

    beforeAll(async () => {
      context = await environment({
        PARLEY_SECRET_KEY: "a-shared-master-key-of-the-three-processes",
        PARLEY_KEY_RATE_LIMIT: String(KEY_LIMIT),
        PARLEY_CONVERSATION_RATE_LIMIT: String(CONVERSATION_LIMIT),
      });
      receiver = await startSlowReceiver(1_000);
      cluster = await startCluster({ size: 3, databaseUrl: storageUrl!, redisUrl: redisUrl!, env: context.env });
    }, 120_000);

    afterAll(async () => {
      await cluster?.stop();
      await receiver?.close();
      await context?.cleanup();
    }, 60_000);

    /** A user on a plan of `monthlyMessages`, with `keys` API keys and a chatbot without knowledge. */
    const seed = async (email: string, monthlyMessages: number, keys = 1) => {
      const { admin } = cluster.seeder.parley;
      await admin.setPlan(`plan-${email}`, monthlyMessages);
      const user = await admin.createUser({ email, plan: `plan-${email}` });
      const keyList = await Promise.all(Array.from({ length: keys }, async () => (await admin.createApiKey({ userId: user.id })).key));
      const bot = await admin.createChatbot({ userId: user.id, name: "Support", provider: "openai", model: "gpt-test" });
      return { user, keys: keyList, bot };
    };
    const chat = (index: number, key: string, botId: string, session: string) =>
      call(`${urls()[index % urls().length]}/v1/chatbots/${botId}/chat`, { key, body: { message: `question ${index}`, session_id: session } });

    it("100 concurrent chats with 37 messages of quota left accept exactly 37", async () => {
      const { user, keys, bot } = await seed("quota@example.com", 37, 5);
      const responses = await Promise.all(Array.from({ length: 100 }, (_, index) => chat(index, keys[index % 5]!, bot.id, `session-${index}`)));
      expect(responses.filter((response) => response.status === 200)).toHaveLength(37);
      const refused = responses.filter((response) => response.status === 429);
      expect(refused).toHaveLength(63);
      for (const response of refused) expect((response.json as { detail: string }).detail).toMatch(/^Monthly message limit reached: the plan-quota@example\.com plan allows 37 messages per month\./);
      const { rows } = await cluster.storagePool.query<{ used: number }>("SELECT sum(used)::bigint AS used FROM monthly_usage WHERE user_id = $1", [user.id]);
      expect(rows[0]!.used).toBe(37);
    }, 120_000);

    it(`200 concurrent requests with one key get exactly the per-key limit (${KEY_LIMIT})`, async () => {
      const { keys } = await seed("key@example.com", 1_000);
      const responses = await Promise.all(Array.from({ length: 200 }, (_, index) => call(`${urls()[index % 3]}/v1/chatbots`, { key: keys[0]! })));
      expect(responses.filter((response) => response.status === 200)).toHaveLength(KEY_LIMIT);
      const refused = responses.filter((response) => response.status === 429);
      expect(refused).toHaveLength(200 - KEY_LIMIT);
      for (const response of refused) expect(response.json).toEqual({ detail: `API rate limit exceeded. Maximum ${KEY_LIMIT} requests per minute.` });
    }, 120_000);

    it(`one conversation's limit (${CONVERSATION_LIMIT} a minute) holds across the processes`, async () => {
      const { keys, bot } = await seed("conversation@example.com", 1_000);
      const responses = await Promise.all(Array.from({ length: 40 }, (_, index) => chat(index, keys[0]!, bot.id, "one-session")));
      expect(responses.filter((response) => response.status === 200)).toHaveLength(CONVERSATION_LIMIT);
      const refused = responses.filter((response) => response.status === 429);
      expect(refused).toHaveLength(40 - CONVERSATION_LIMIT);
      for (const response of refused) {
        expect(response.json).toEqual({ detail: `Conversation rate limit exceeded. Maximum ${CONVERSATION_LIMIT} messages per minute in one conversation.` });
      }
    }, 120_000);

    it("an SSE stream on one process receives the events written by a chat on another", async () => {
      const { user, keys, bot } = await seed("sse@example.com", 1_000);
      const { key: adminKey } = await cluster.seeder.parley.admin.createApiKey({ userId: user.id, scope: "admin" });
      const stop = new AbortController();
      const response = await fetch(`${urls()[0]}/v1/admin/events`, { headers: { authorization: `Bearer ${adminKey}` }, signal: stop.signal });
      expect(response.status).toBe(200);
      const reader = response.body!.getReader();
      let text = "";
      const sent = await chat(1, keys[0]!, bot.id, "streamed");
      expect(sent.status).toBe(200);
      const deadline = Date.now() + 30_000;
      while (!text.includes("event: message.received") && Date.now() < deadline) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      stop.abort();
      expect(text).toContain("event: conversation.started");
      expect(text).toContain("event: message.received");
      expect(text).toMatch(/"session_id": ?"streamed"/);
    }, 60_000);

    it("a visitor's event stream on one process receives the agent's reply posted on another", async () => {
      const { user, bot } = await seed("visitor@example.com", 1_000);
      const { key: adminKey } = await cluster.seeder.parley.admin.createApiKey({ userId: user.id, scope: "admin" });
      const [first, second, third] = urls();
      expect((await call(`${second}/v1/admin/chatbots/${bot.id}`, { method: "PATCH", key: adminKey, body: { widget: { enabled: true } } })).status).toBe(200);
      const session = await call(`${first}/v1/widget/${bot.id}/sessions`, { body: {} });
      expect(session.status).toBe(201);
      const token = (session.json as { token: string }).token;
      expect((await call(`${first}/v1/widget/${bot.id}/messages`, { key: token, body: { message: "Is anyone there?" } })).status).toBe(200);
      const stop = new AbortController();
      const stream = await fetch(`${first}/v1/widget/${bot.id}/events`, { headers: { authorization: `Bearer ${token}` }, signal: stop.signal });
      expect(stream.status).toBe(200);
      const reader = stream.body!.getReader();
      const conversations = await call(`${third}/v1/admin/conversations?chatbot_id=${bot.id}`, { key: adminKey });
      const conversationId = (conversations.json as { data: { id: string }[] }).data[0]!.id;
      expect((await call(`${third}/v1/admin/conversations/${conversationId}/messages`, { key: adminKey, body: { content: "Yes, Dana here." } })).status).toBe(201);
      let text = "";
      while (!text.includes("Dana here")) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      stop.abort();
      expect(text).toContain("event: conversation.takeover_started");
      expect(text).toMatch(/event: message\.sent\ndata: .*"author": ?"agent".*"Yes, Dana here\."/);
    }, 60_000);

    it("every webhook reaches the receiver exactly once by webhook-id, though a process is killed while delivering", async () => {
      const { user, keys, bot } = await seed("webhooks@example.com", 1_000, 2);
      await cluster.seeder.parley.admin.createWebhookSubscription({ userId: user.id, url: receiver.url, eventTypes: ["message.received"] });
      // Only the two processes that live on take chats; all three deliver.
      // Mid-delivery, the third process dies without a chance to record anything, as a crashed
      // machine would: as soon as a request of its own reaches the receiver, which answers it
      // only a second later, so an attempt of the killed process is surely in flight.
      const victim = cluster.members[2]!.child;
      let killed = false;
      receiver.onRequest = (clientPort) => {
        if (killed || !holdsConnection(victim.pid!, clientPort, receiver.port)) return;
        killed = victim.kill("SIGKILL");
      };
      const responses = await Promise.all(Array.from({ length: 30 }, (_, index) => call(`${urls()[index % 2]}/v1/chatbots/${bot.id}/chat`, { key: keys[index % 2]!, body: { message: `question ${index}`, session_id: `hook-${index}` } })));
      expect(responses.every((response) => response.status === 200)).toBe(true);
      await eventually(async () => killed, 60_000);
      await eventually(async () => {
        const { rows } = await cluster.storagePool.query<{ open: number }>(
          "SELECT (SELECT count(*) FROM webhook_deliveries WHERE status <> 'delivered') + (SELECT count(*) FROM outbox_events WHERE dispatched_at IS NULL) AS open",
        );
        return rows[0]!.open === 0;
      }, 90_000);
      const { rows } = await cluster.storagePool.query<{ id: string; attempts: number }>("SELECT id, attempts FROM webhook_deliveries ORDER BY id");
      expect(rows).toHaveLength(30);
      // At least once on the wire, none lost: the receiver saw every delivery's webhook-id.
      expect([...new Set(receiver.ids)].sort()).toEqual(rows.map((row) => row.id));
      // The killed process held attempts in flight: their leases ran out and another process
      // sent them again under the same webhook-id (so the receiver saw some ids twice).
      expect(rows.some((row) => row.attempts >= 2)).toBe(true);
      expect(receiver.ids.length).toBeGreaterThan(30);
    }, 180_000);
  },
);
