import { afterEach, beforeEach, describe, it } from "vitest";
import type { Storage } from "../ports/storage.js";
import { registerAccountTests } from "./storage-contract-accounts.js";
import { registerConversationTests } from "./storage-contract-conversations.js";
import { registerQuotaTests } from "./storage-contract-quota.js";
import { registerReplyTests } from "./storage-contract-replies.js";
import { registerWebhookTests } from "./storage-contract-webhooks.js";
import { registerOperatorTests } from "./storage-contract-operator.js";
import { registerAgentTests } from "./storage-contract-agents.js";
import { uuidOf, type ContractContext, type RegisterTest } from "./storage-contract-fixtures.js";
import { skipper, type SkippedCase } from "./skip.js";

/** Every case of the suite, by the exact name `skip` refers to. */
export const STORAGE_CASES = [
  "upsertPlan creates a plan and then updates its limit",
  "getPlan returns null for an unknown plan",
  "ensurePlan creates a missing plan but never overwrites an existing one",
  "createUser stores a user that getUser returns unchanged",
  "createUser refuses an email already taken, whatever its case, with conflict",
  "listUsers returns every user oldest first",
  "findApiKeyByHash returns the key with its user, or null for an unknown hash",
  "revokeApiKey marks the key revoked, is idempotent, and findApiKeyByHash still returns it",
  "revokeApiKey returns null for an unknown key",
  "createChatbot stores the chatbot under its base slug and getChatbot returns it",
  "createChatbot numbers clashing slugs per owner: support, support-2, support-3",
  "createChatbot takes the first free slug, and a soft-deleted chatbot frees its slug",
  "createChatbot treats only base and base-N as clashes",
  "listChatbots returns the owner's live chatbots newest first, ties by id ascending",
  "updateChatbot applies the changes, keeps every other field, and persists them",
  "a soft-deleted chatbot leaves the list but getChatbot still returns it",
  "webhook subscriptions are listed per user oldest first and deleted once",
  "the first message creates the conversation, stores the message and writes both events",
  "later messages reuse the conversation of (chatbot, session) and write only message.received",
  "another session or another chatbot gets its own conversation",
  "history is the historyLimit most recent messages before the current one, oldest first",
  "a historyLimit of 0 returns no history",
  "messages with equal timestamps keep their insertion order",
  "the events builder gets the facts the step decided, and its events are returned and written",
  "a message during a takeover shows the flag in the result, to the builder and in the event",
  "an events builder that throws leaves nothing written",
  "a refused message writes nothing: no conversation, no message, no event, no count",
  "a limit of 0, or one lowered below the count, refuses and reports the count",
  "months and users are separate counters",
  "25 concurrent messages with 10 left accept exactly 10",
  "appendAssistantMessage stores a model's or an agent's reply after the user message",
  "appendAssistantMessage stores a reply's sources with it, and every read gives them back in order",
  "setHumanTakeover on a new session creates the conversation with its events",
  "setHumanTakeover toggles an existing conversation, telling the builder whether the flag changed",
  "findConversation returns null for an unknown session",
  "listOutboxEvents returns the oldest events first, at most limit",
  "fanOutOutboxEvents creates one pending delivery per matching subscription and marks the events dispatched",
  "fanOutOutboxEvents narrows by chatbot and event type, and skips subscriptions created after the event",
  "fanOutOutboxEvents takes the oldest events first, at most limit, each exactly once",
  "claimDueDeliveries leases due deliveries most overdue first, counting an attempt, and never the same attempt twice",
  "claimDueDeliveries takes at most perSubscriptionLimit per subscription and skips the subscriptions named",
  "recordDeliveryAttempt records delivered, retry and failed, and ignores a stale attempt",
  "a claim whose lease ended is claimed again as the next attempt",
  "listDeliveries returns the newest first, at most limit, optionally of one status",
  "retryDelivery makes a failed delivery pending again and brings a pending one forward, but not one in flight",
  "retryDelivery returns null for an unknown delivery or one whose subscription was removed",
  "deleteWebhookSubscription fails its pending deliveries and keeps its delivered ones",
  "keys are listed per user newest first, found by id, and record their last use",
  "conversations keep their activity, count and attention, and replies write their events in the same step",
  "listConversations lists the owner's by newest activity, filtered by chatbot and status, after a position, never a deleted chatbot's",
  "listMessagesAfter returns the messages after one of the conversation's, or null for any other id",
  "the outbox reads by position, for everyone or one user, and knows each event's position",
  "getUsageBreakdown counts the owner's user messages in the range, per chatbot and per UTC day",
  "claimIngestion leases the oldest queued ingestion, then one whose lease ended, and never a live one",
  "updateIngestion records progress and the end of the current run, and ignores a run that was taken over",
  "an agent's reply keeps the agent's name; the model's and visitors' messages have none",
  "attention keeps its reason: fallback, provider_failed, and none once answered",
  "read state is per key, counts visitor messages after the last read one, and never moves back",
  "listConversations with unreadFor lists only those with visitor messages that key has not read",
  "a takeover change is kept on the timeline with who and when; setting the same flag adds nothing",
  "claimIngestion shares the runners between users: perUser live leases at most, the user served longest ago first",
] as const;

/** The name of one case of the Storage contract. */
export type StorageCase = (typeof STORAGE_CASES)[number];

/** How to run the Storage contract on one adapter. */
export interface StorageContractOptions {
  /** A fresh, empty storage for each test; the suite closes it after the test. */
  create: () => Promise<Storage> | Storage;
  /** Tests the adapter cannot pass, by exact name, each with its reason. */
  skip?: readonly SkippedCase[];
}

/**
 * The behaviour every Storage adapter must have, as Vitest tests: call it at the top level of
 * an adapter's test file. Each test gets its own empty storage from `create`.
 */
export function runStorageContract(options: StorageContractOptions): void {
  const skipped = skipper("Storage contract", STORAGE_CASES, options.skip);
  let current: Storage | undefined;
  let sequence = 0;

  const context: ContractContext = {
    storage() {
      if (!current) throw new Error("The storage is only available inside a contract test.");
      return current;
    },
    nextId: () => uuidOf(++sequence),
  };
  const test: RegisterTest = (name, body) => (skipped(name) ? it.skip : it)(name, body);

  describe("Storage contract", () => {
    beforeEach(async () => {
      sequence = 0;
      current = await options.create();
    });
    afterEach(async () => {
      await current?.close();
      current = undefined;
    });
    registerAccountTests(context, test);
    registerConversationTests(context, test);
    registerQuotaTests(context, test);
    registerReplyTests(context, test);
    registerWebhookTests(context, test);
    registerOperatorTests(context, test);
    registerAgentTests(context, test);
  });
}
