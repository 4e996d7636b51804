import { describe, expect } from "vitest";
import { isParleyError } from "../errors.js";
import { START, seedChatbot, seedUser, uuidOf, type ContractContext, type RegisterTest } from "./storage-contract-fixtures.js";

/** Plans, users, API keys, chatbots and webhook subscriptions. */
export function registerAccountTests(context: ContractContext, test: RegisterTest): void {
  const storage = () => context.storage();

  describe("plans", () => {
    test("upsertPlan creates a plan and then updates its limit", async () => {
      expect(await storage().upsertPlan({ name: "pro", monthlyMessages: 5000 })).toEqual({ name: "pro", monthlyMessages: 5000 });
      await storage().upsertPlan({ name: "pro", monthlyMessages: 7000 });
      expect(await storage().getPlan("pro")).toEqual({ name: "pro", monthlyMessages: 7000 });
    });

    test("getPlan returns null for an unknown plan", async () => {
      await storage().upsertPlan({ name: "pro", monthlyMessages: 5000 });
      expect(await storage().getPlan("enterprise")).toBeNull();
    });

    test("ensurePlan creates a missing plan but never overwrites an existing one", async () => {
      expect(await storage().ensurePlan({ name: "free", monthlyMessages: 1000 })).toEqual({ name: "free", monthlyMessages: 1000 });
      await storage().upsertPlan({ name: "free", monthlyMessages: 50 });
      // The stored limit wins over the default passed to ensurePlan.
      expect(await storage().ensurePlan({ name: "free", monthlyMessages: 1000 })).toEqual({ name: "free", monthlyMessages: 50 });
      expect(await storage().getPlan("free")).toEqual({ name: "free", monthlyMessages: 50 });
    });
  });

  describe("users", () => {
    test("createUser stores a user that getUser returns unchanged", async () => {
      await storage().upsertPlan({ name: "pro", monthlyMessages: 5000 });
      const user = { id: uuidOf(900), email: "Ada@Example.com", planName: "pro", monthlyMessagesOverride: 42, createdAt: START + 7 };
      expect(await storage().createUser(user)).toEqual(user);
      expect(await storage().getUser(user.id)).toEqual(user);
      expect(await storage().getUser(uuidOf(901))).toBeNull();
    });

    test("createUser refuses an email already taken, whatever its case, with conflict", async () => {
      const first = await seedUser(context, "ada@example.com");
      const second = { id: context.nextId(), email: "ADA@Example.COM", planName: "free", monthlyMessagesOverride: null, createdAt: START };
      const failure = await storage().createUser(second).then(
        () => null,
        (error: unknown) => error,
      );
      expect(isParleyError(failure, "conflict")).toBe(true);
      expect(await storage().getUser(second.id)).toBeNull();
      expect(await storage().getUser(first.id)).toEqual(first);
      // A different address is still accepted afterwards.
      await expect(storage().createUser({ ...second, email: "grace@example.com" })).resolves.toMatchObject({ id: second.id });
    });

    test("listUsers returns every user oldest first", async () => {
      expect(await storage().listUsers()).toEqual([]);
      await storage().ensurePlan({ name: "free", monthlyMessages: 1000 });
      const user = (id: string, email: string, createdAt: number) => ({ id, email, planName: "free", monthlyMessagesOverride: null, createdAt });
      const [late, early, tie] = [user(uuidOf(3), "c@example.com", START + 5), user(uuidOf(2), "b@example.com", START), user(uuidOf(1), "a@example.com", START)];
      for (const each of [late, early, tie]) await storage().createUser(each);
      expect(await storage().listUsers()).toEqual([tie, early, late]);
    });
  });

  describe("API keys", () => {
    test("findApiKeyByHash returns the key with its user, or null for an unknown hash", async () => {
      const user = await seedUser(context);
      const key = { id: context.nextId(), userId: user.id, name: "ci", keyHash: "a".repeat(64), scope: "chat" as const, createdAt: START, revokedAt: null, lastUsedAt: null };
      expect(await storage().createApiKey(key)).toEqual(key);
      expect(await storage().findApiKeyByHash(key.keyHash)).toEqual({ apiKey: key, user });
      expect(await storage().findApiKeyByHash("b".repeat(64))).toBeNull();
    });

    test("revokeApiKey marks the key revoked, is idempotent, and findApiKeyByHash still returns it", async () => {
      const user = await seedUser(context);
      const key = { id: context.nextId(), userId: user.id, name: "ci", keyHash: "c".repeat(64), scope: "chat" as const, createdAt: START, revokedAt: null, lastUsedAt: null };
      await storage().createApiKey(key);
      expect(await storage().revokeApiKey(key.id, START + 100)).toEqual({ ...key, revokedAt: START + 100 });
      // Revoking again changes nothing: the first revocation time stays.
      expect(await storage().revokeApiKey(key.id, START + 200)).toEqual({ ...key, revokedAt: START + 100 });
      expect((await storage().findApiKeyByHash(key.keyHash))?.apiKey.revokedAt).toBe(START + 100);
    });

    test("revokeApiKey returns null for an unknown key", async () => {
      expect(await storage().revokeApiKey(uuidOf(999), START)).toBeNull();
    });
  });

  describe("chatbots", () => {
    test("createChatbot stores the chatbot under its base slug and getChatbot returns it", async () => {
      const owner = await seedUser(context);
      const chatbot = await seedChatbot(context, owner.id, { baseSlug: "help-desk", createdAt: START + 3 });
      expect(chatbot.slug).toBe("help-desk");
      expect(await storage().getChatbot(chatbot.id)).toEqual(chatbot);
      expect(await storage().getChatbot(uuidOf(999))).toBeNull();
    });

    test("createChatbot numbers clashing slugs per owner: support, support-2, support-3", async () => {
      const owner = await seedUser(context);
      const other = await seedUser(context);
      const slugs = [];
      for (let count = 0; count < 3; count += 1) slugs.push((await seedChatbot(context, owner.id)).slug);
      expect(slugs).toEqual(["support", "support-2", "support-3"]);
      // Slugs are unique per owner only.
      expect((await seedChatbot(context, other.id)).slug).toBe("support");
    });

    test("createChatbot takes the first free slug, and a soft-deleted chatbot frees its slug", async () => {
      const owner = await seedUser(context);
      const first = await seedChatbot(context, owner.id);
      const second = await seedChatbot(context, owner.id);
      await seedChatbot(context, owner.id);
      await storage().updateChatbot(second.id, { deletedAt: START + 1 });
      expect((await seedChatbot(context, owner.id)).slug).toBe("support-2");
      await storage().updateChatbot(first.id, { deletedAt: START + 2 });
      expect((await seedChatbot(context, owner.id)).slug).toBe("support");
    });

    test("createChatbot treats only base and base-N as clashes", async () => {
      const owner = await seedUser(context);
      expect((await seedChatbot(context, owner.id, { baseSlug: "support-team" })).slug).toBe("support-team");
      expect((await seedChatbot(context, owner.id, { baseSlug: "supportive" })).slug).toBe("supportive");
      expect((await seedChatbot(context, owner.id, { baseSlug: "support-2" })).slug).toBe("support-2");
      expect((await seedChatbot(context, owner.id)).slug).toBe("support");
      // support and support-2 are taken, so the next is support-3.
      expect((await seedChatbot(context, owner.id)).slug).toBe("support-3");
    });

    test("listChatbots returns the owner's live chatbots newest first, ties by id ascending", async () => {
      const owner = await seedUser(context);
      const other = await seedUser(context);
      const oldest = await seedChatbot(context, owner.id, { createdAt: START, id: uuidOf(500) });
      // Same time: inserted in reverse id order, so only an id tie-break puts 100 before 200.
      const tiedHigh = await seedChatbot(context, owner.id, { createdAt: START + 10, id: uuidOf(200) });
      const tiedLow = await seedChatbot(context, owner.id, { createdAt: START + 10, id: uuidOf(100) });
      const deleted = await seedChatbot(context, owner.id, { createdAt: START + 20, id: uuidOf(300) });
      await storage().updateChatbot(deleted.id, { deletedAt: START + 30 });
      await seedChatbot(context, other.id, { createdAt: START + 40, id: uuidOf(400) });
      expect(await storage().listChatbots(owner.id)).toEqual([tiedLow, tiedHigh, oldest]);
      expect(await storage().listChatbots(uuidOf(999))).toEqual([]);
    });

    test("updateChatbot applies the changes, keeps every other field, and persists them", async () => {
      const owner = await seedUser(context);
      const chatbot = await seedChatbot(context, owner.id);
      const changed = await storage().updateChatbot(chatbot.id, { name: "Helpdesk", systemPrompt: "Be brief.", isActive: false });
      const expected = { ...chatbot, name: "Helpdesk", systemPrompt: "Be brief.", isActive: false };
      expect(changed).toEqual(expected);
      expect(await storage().getChatbot(chatbot.id)).toEqual(expected);
      expect(await storage().updateChatbot(chatbot.id, { isActive: true })).toEqual({ ...expected, isActive: true });
      expect(await storage().updateChatbot(uuidOf(999), { isActive: true })).toBeNull();
    });

    test("a soft-deleted chatbot leaves the list but getChatbot still returns it", async () => {
      const owner = await seedUser(context);
      const chatbot = await seedChatbot(context, owner.id);
      await storage().updateChatbot(chatbot.id, { deletedAt: START + 5 });
      expect(await storage().listChatbots(owner.id)).toEqual([]);
      expect(await storage().getChatbot(chatbot.id)).toEqual({ ...chatbot, deletedAt: START + 5 });
    });
  });

  describe("webhook subscriptions", () => {
    test("webhook subscriptions are listed per user oldest first and deleted once", async () => {
      const user = await seedUser(context);
      const other = await seedUser(context);
      const chatbot = await seedChatbot(context, user.id);
      const base = { userId: user.id, url: "https://hooks.example.com/parley", signingKeyId: "0123456789abcdef" };
      // Created out of time order, so insertion order alone would list them wrongly.
      const newer = { ...base, id: context.nextId(), chatbotId: chatbot.id, eventTypes: ["message.received" as const], publicOnly: false, createdAt: START + 5 };
      const older = { ...base, id: context.nextId(), chatbotId: null, eventTypes: [], publicOnly: true, createdAt: START + 1 };
      expect(await storage().createWebhookSubscription(newer)).toEqual(newer);
      await storage().createWebhookSubscription(older);
      await storage().createWebhookSubscription({ ...older, id: context.nextId(), userId: other.id });
      expect(await storage().listWebhookSubscriptions(user.id)).toEqual([older, newer]);

      expect(await storage().deleteWebhookSubscription(older.id)).toBe(true);
      expect(await storage().deleteWebhookSubscription(older.id)).toBe(false);
      expect(await storage().listWebhookSubscriptions(user.id)).toEqual([newer]);
    });
  });
}
