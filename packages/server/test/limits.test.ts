import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, environment, serve } from "./harness.js";

let context: Awaited<ReturnType<typeof environment>>;
let server: Awaited<ReturnType<typeof serve>>;
let userId: string;
let botId: string;

beforeAll(async () => {
  context = await environment();
  server = await serve(context.env);
  const { admin } = server.runtime.parley;
  await admin.setPlan("small", 10);
  userId = (await admin.createUser({ email: "limits@example.com", plan: "small" })).id;
  botId = (await admin.createChatbot({ userId, name: "Limits", provider: "openai", model: "gpt-test" })).id;
});

afterAll(async () => {
  await server?.running.stop();
  await context?.cleanup();
});

describe("limits over HTTP", () => {
  it("sends RateLimit headers, refuses the 61st request of a key in a minute with Retry-After, and keeps other keys apart", async () => {
    const { key } = await server.runtime.parley.admin.createApiKey({ userId });
    for (let index = 1; index <= 60; index += 1) {
      const response = await call(`${server.url}/v1/chatbots`, { key });
      expect(response.status).toBe(200);
      expect(response.headers.get("ratelimit-limit")).toBe("60");
      expect(response.headers.get("ratelimit-remaining")).toBe(String(60 - index));
      // Seconds until the newest hit leaves the 60 s window: every hit here is less than a minute old.
      expect(Number(response.headers.get("ratelimit-reset"))).toBeGreaterThanOrEqual(1);
      expect(Number(response.headers.get("ratelimit-reset"))).toBeLessThanOrEqual(60);
    }
    const refused = await call(`${server.url}/v1/chatbots`, { key });
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual({ detail: "API rate limit exceeded. Maximum 60 requests per minute." });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(60);
    expect(refused.headers.get("ratelimit-remaining")).toBe("0");
    // A refused request is not counted, and other keys are not affected.
    const other = await server.runtime.parley.admin.createApiKey({ userId });
    expect((await call(`${server.url}/v1/chatbots`, { key: other.key })).status).toBe(200);
  });

  it("answers exactly 10 of 25 concurrent chats with a quota of 10, and 429 to the rest with the quota detail", async () => {
    const keys = await Promise.all(Array.from({ length: 5 }, async () => (await server.runtime.parley.admin.createApiKey({ userId })).key));
    const responses = await Promise.all(
      Array.from({ length: 25 }, (_, index) =>
        call(`${server.url}/v1/chatbots/${botId}/chat`, { key: keys[index % 5]!, body: { message: `message ${index}`, session_id: `session-${index}` } }),
      ),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(15);
    for (const response of responses.filter((candidate) => candidate.status === 429)) {
      expect((response.json as { detail: string }).detail).toMatch(/^Monthly message limit reached: the small plan allows 10 messages per month\. The limit resets on \d{4}-\d\d-01\.$/);
      const retryAfter = Number(response.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(31 * 86_400);
    }
    const { users } = server.runtime.database.prepare("SELECT count(*) AS users FROM messages WHERE role = 'user'").get() as { users: number };
    expect(users).toBe(10);
  });
});
