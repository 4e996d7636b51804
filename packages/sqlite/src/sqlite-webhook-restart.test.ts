import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import { createDerivedWebhookSecrets, type Storage } from "@parley/core";
import { createSqliteStorage } from "./sqlite-storage.js";
import { closeAfterEach, seedChatbot, START, temporaryPaths } from "./sqlite-storage-test-fixtures.js";

// Durability across a crash: a dispatcher runs in a child process on a database file and is
// killed with SIGKILL mid-way; a second child on the same file must deliver what was pending.

const KEY_HEX = "5a".repeat(32);
const secrets = createDerivedWebhookSecrets(Buffer.from(KEY_HEX, "hex"));
const CHILD = fileURLToPath(new URL("./sqlite-webhook-dispatcher-child.ts", import.meta.url));
const freshPath = temporaryPaths();
const track = closeAfterEach();
const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A receiver that answers from a script (then 200) and records webhook-id and the signed parts. */
async function startReceiver(...script: (number | "hang")[]) {
  const requests: { headers: Record<string, string>; body: string }[] = [];
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk));
    request.on("end", () => {
      requests.push({ headers: request.headers as Record<string, string>, body });
      const answer = script.shift() ?? 200;
      if (answer !== "hang") response.writeHead(answer).end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, requests };
}

/** Starts the dispatcher child; `until` resolves once it prints a line matching the predicate. */
function startChild(path: string) {
  const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", CHILD, path, KEY_HEX], { stdio: ["ignore", "pipe", "inherit"] });
  const lines: Record<string, unknown>[] = [];
  const listeners: (() => void)[] = [];
  let buffered = "";
  child.stdout.on("data", (chunk: Buffer) => {
    buffered += chunk.toString();
    const complete = buffered.split("\n");
    buffered = complete.pop()!;
    lines.push(...complete.map((line) => JSON.parse(line) as Record<string, unknown>));
    for (const listener of listeners) listener();
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_code, signal) => resolve(signal)));
  // Checked on every line the child prints, and every 10 ms for what happens elsewhere.
  const until = (predicate: () => boolean, what: string) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => (clearInterval(poll), reject(new Error(`The child never ${what}; it printed ${JSON.stringify(lines)}.`))), 30_000);
      const check = () => predicate() && (clearTimeout(timer), clearInterval(poll), resolve());
      const poll = setInterval(check, 10);
      listeners.push(check);
      check();
    });
  const kill = async () => {
    child.kill("SIGKILL");
    expect(await exited).toBe("SIGKILL");
  };
  return { lines, until, kill };
}

/** A database with one subscription to a receiver and one message.received waiting in the outbox. */
async function seeded(url: string): Promise<{ storage: Storage; path: string; subscriptionId: string }> {
  const path = freshPath();
  const storage = track(createSqliteStorage({ path }));
  const { user, input } = await seedChatbot(storage);
  const subscriptionId = "3f1c2d4e-0000-4000-8000-000000000001";
  await storage.createWebhookSubscription({ id: subscriptionId, userId: user.id, url, chatbotId: null, eventTypes: [], signingKeyId: secrets.keyId(), publicOnly: false, createdAt: START });
  await storage.acceptUserMessage(input());
  return { storage, path, subscriptionId };
}

const attemptWith = (outcome: string) => (line: Record<string, unknown>) => line.event === "webhook_attempt" && line.outcome === outcome;

describe("webhook delivery across a crash", () => {
  it("delivers after a restart what a killed dispatcher left waiting for its retry", async () => {
    const receiver = await startReceiver(500);
    const { storage, path, subscriptionId } = await seeded(receiver.url);
    const first = startChild(path);
    await first.until(() => first.lines.some(attemptWith("retry")), "recorded a retry");
    await first.kill();
    expect(await storage.listDeliveries({ limit: 10 })).toMatchObject([{ status: "pending", attempts: 1, lastResponseStatus: 500 }]);

    const second = startChild(path);
    await second.until(() => second.lines.some(attemptWith("delivered")), "delivered");
    await second.kill();
    expect(await storage.listDeliveries({ limit: 10 })).toMatchObject([{ status: "delivered", attempts: 2, lastResponseStatus: 200 }]);
    const [failedOnce, delivered] = receiver.requests;
    expect(delivered!.headers["webhook-id"]).toBe(failedOnce!.headers["webhook-id"]);
    expect(() => new Webhook(secrets.secretFor(subscriptionId)).verify(delivered!.body, delivered!.headers)).not.toThrow();
  }, 90_000);

  it("retries, once its lease ends, an attempt the killed dispatcher had in flight", async () => {
    const receiver = await startReceiver("hang");
    const { storage, path } = await seeded(receiver.url);
    const first = startChild(path);
    await first.until(() => receiver.requests.length === 1, "sent the first attempt");
    await first.kill();
    // The attempt was counted when it was claimed; its outcome was never recorded.
    expect(await storage.listDeliveries({ limit: 10 })).toMatchObject([{ status: "pending", attempts: 1, lastAttemptAt: null }]);

    const second = startChild(path);
    await second.until(() => second.lines.some(attemptWith("delivered")), "delivered");
    await second.kill();
    expect(receiver.requests.map((request) => request.headers["webhook-id"])).toEqual([
      receiver.requests[0]!.headers["webhook-id"],
      receiver.requests[0]!.headers["webhook-id"],
    ]);
    expect(await storage.listDeliveries({ limit: 10 })).toMatchObject([{ status: "delivered", attempts: 2 }]);
  }, 90_000);
});
