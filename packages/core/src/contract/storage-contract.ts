import { afterEach, beforeEach, describe, it } from "vitest";
import type { Storage } from "../ports/storage.js";
import { registerAccountTests } from "./storage-contract-accounts.js";
import { registerConversationTests } from "./storage-contract-conversations.js";
import { uuidOf, type ContractContext } from "./storage-contract-fixtures.js";
import type { SkippedCase } from "./skip.js";

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
  const reasons = new Map((options.skip ?? []).map((entry) => [entry.test, entry.reason]));
  for (const [name, reason] of reasons) {
    if (reason.trim() === "") throw new Error(`Storage contract: skipping "${name}" needs a reason.`);
  }
  const registered = new Set<string>();
  let current: Storage | undefined;
  let sequence = 0;

  const context: ContractContext = {
    storage() {
      if (!current) throw new Error("The storage is only available inside a contract test.");
      return current;
    },
    nextId: () => uuidOf(++sequence),
  };

  const test = (name: string, body: () => Promise<void>) => {
    // Skips refer to tests by name, so a duplicate would make a skip ambiguous.
    if (registered.has(name)) throw new Error(`Two storage contract tests are named "${name}".`);
    registered.add(name);
    const reason = reasons.get(name);
    if (reason === undefined) it(name, body);
    else it.skip(`${name} (skipped: ${reason})`, body);
  };

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
  });

  // A misspelt skip name would otherwise skip nothing and go unnoticed.
  const unknown = [...reasons.keys()].filter((name) => !registered.has(name));
  if (unknown.length > 0) throw new Error(`Storage contract: no case named ${unknown.map((name) => `"${name}"`).join(", ")} to skip.`);
}
