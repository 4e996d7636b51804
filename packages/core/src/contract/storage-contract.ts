import { afterEach, beforeEach, describe, it } from "vitest";
import type { Storage } from "../ports/storage.js";
import { registerAccountTests } from "./storage-contract-accounts.js";
import { registerConversationTests } from "./storage-contract-conversations.js";
import { uuidOf, type ContractContext } from "./storage-contract-fixtures.js";

/** A test an adapter cannot pass, named exactly as in the suite, with the reason why. */
export interface SkippedContractTest {
  test: string;
  reason: string;
}

/** How to run the Storage contract on one adapter. */
export interface StorageContractOptions {
  /** A fresh, empty storage for each test; the suite closes it after the test. */
  create: () => Promise<Storage> | Storage;
  skip?: readonly SkippedContractTest[];
}

/**
 * The behaviour every Storage adapter must have, as Vitest tests: call it at the top level of
 * an adapter's test file. Each test gets its own empty storage from `create`.
 */
export function runStorageContract(options: StorageContractOptions): void {
  const reasons = new Map((options.skip ?? []).map((entry) => [entry.test, entry.reason]));
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

  // A misspelt skip would otherwise run nothing less and hide the typo.
  const unknown = [...reasons.keys()].filter((name) => !registered.has(name));
  if (unknown.length > 0) throw new Error(`runStorageContract: no test is named ${unknown.map((name) => `"${name}"`).join(", ")}.`);
}
