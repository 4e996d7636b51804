import { afterEach, beforeEach, describe, it } from "vitest";
import type { Storage } from "../ports/storage.js";
import { registerAccountTests } from "./storage-contract-accounts.js";
import { registerConversationTests } from "./storage-contract-conversations.js";
import { registerQuotaTests } from "./storage-contract-quota.js";
import { registerReplyTests } from "./storage-contract-replies.js";
import { registerWebhookTests } from "./storage-contract-webhooks.js";
import { registerOperatorTests } from "./storage-contract-operator.js";
import { registerAgentTests } from "./storage-contract-agents.js";
import { registerWidgetTests } from "./storage-contract-widget.js";
import { uuidOf, type ContractContext, type RegisterTest } from "./storage-contract-fixtures.js";
import { STORAGE_CASES } from "./storage-contract-cases.js";
import { skipper, type SkippedCase } from "./skip.js";

export { STORAGE_CASES, type StorageCase } from "./storage-contract-cases.js";

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
    registerWidgetTests(context, test);
  });
}
