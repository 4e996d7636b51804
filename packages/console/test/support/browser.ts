import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";

/** Debian's Chromium: the tests never download a browser. */
export const CHROMIUM = "/usr/bin/chromium";

/**
 * Whether a suite must skip for want of Chromium; if so it says so on stderr with the `skipped:`
 * marker every suite needing a server or a browser prints, which `.ci/run` refuses.
 */
export function skipWithoutChromium(suite: string): boolean {
  if (existsSync(CHROMIUM)) return false;
  console.warn(`skipped: ${suite}: ${CHROMIUM} is missing (apt-get install chromium).`);
  return true;
}

/** A headless Chromium on a fresh profile, with everything a page did wrong collected. */
export interface TestBrowser {
  context: BrowserContext;
  /** Console errors (CSP violations among them), page errors and dialogs: all must stay empty. */
  problems: string[];
  /** Every URL the pages requested. */
  requests: string[];
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/** Launches Chromium headless with no sandbox, GPU, background networking or first-run UI. */
export async function launchBrowser(): Promise<TestBrowser> {
  const profile = mkdtempSync(join(tmpdir(), "parley-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 800 },
    locale: "en-US",
    timezoneId: "UTC",
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-quic", "--no-first-run", "--disable-component-update", "--disable-sync"],
  });
  const problems: string[] = [];
  const requests: string[] = [];
  const watch = (page: Page) => {
    page.on("console", (message) => {
      // Chromium logs every non-2xx answer; the refusals the tests provoke on purpose are not faults of the page.
      if (message.type() === "error" && !message.text().startsWith("Failed to load resource: the server responded with a status of")) problems.push(`console: ${message.text()}`);
    });
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("dialog", (dialog) => {
      problems.push(`dialog: ${dialog.message()}`);
      void dialog.dismiss();
    });
    page.on("request", (request) => requests.push(request.url()));
  };
  context.on("page", watch);
  for (const page of context.pages()) watch(page);
  return {
    context,
    problems,
    requests,
    newPage: () => context.newPage(),
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
