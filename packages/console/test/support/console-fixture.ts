import { startFakeOpenAI } from "@parley/providers/testing";
import { inject } from "vitest";
import { launchBrowser } from "./browser.js";
import { api } from "./console-page.js";
import { startParley } from "./start-parley.js";
import { startReceiver } from "./webhook-receiver.js";

/**
 * What every browser test file starts: a fake OpenAI, a webhook receiver, a real
 * `parley serve --quickstart` child process using both, and a fresh headless Chromium.
 */
export async function startConsoleFixture() {
  const openai = await startFakeOpenAI();
  const receiver = await startReceiver();
  const [parley, browser] = await Promise.all([
    startParley({
      OPENAI_API_KEY: "sk-test-secret-1234",
      OPENAI_BASE_URL: openai.url,
      // The webhook receiver listens on 127.0.0.1.
      PARLEY_ALLOW_PRIVATE_URLS: "true",
      PARLEY_LLM_TIMEOUT_MS: "5000",
      // The production build of this run (test/support/build-console.ts), not the installed one.
      PARLEY_CONSOLE_DIR: inject("consoleBuild"),
    }),
    launchBrowser(),
  ]);
  return {
    openai,
    receiver,
    parley,
    browser,
    /** A visitor's message through the public chat route, with the demo's chat key. */
    chat: (message: string, sessionId: string, key = parley.chatKey) => api(parley.url, key, `/v1/chatbots/${parley.chatbotId}/chat`, { message, session_id: sessionId }),
    async close() {
      await browser.close();
      await parley.stop();
      await receiver.close();
      await openai.close();
    },
  };
}

export type ConsoleFixture = Awaited<ReturnType<typeof startConsoleFixture>>;
