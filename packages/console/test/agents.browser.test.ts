import { failWith, replyWith } from "@parley/providers/testing";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, skipWithoutChromium, type TestBrowser } from "./support/browser.js";
import { startConsoleFixture, type ConsoleFixture } from "./support/console-fixture.js";
import { api, screenshot, signIn } from "./support/console-page.js";

/** Records every desktop notification the page makes, by wrapping the browser's own constructor. */
const RECORD_NOTIFICATIONS = `(() => {
  const Original = window.Notification;
  window.__notifications = [];
  window.Notification = class extends Original {
    constructor(title, options) {
      super(title, options);
      window.__notifications.push({ title, body: options && options.body });
    }
  };
})();`;

/** Counts the console's chimes: an AudioContext whose oscillators only count their starts (a chime is two tones). */
const RECORD_CHIMES = `(() => {
  let tones = 0;
  window.__chimes = 0;
  const param = { value: 0, setValueAtTime() {}, exponentialRampToValueAtTime() {} };
  window.AudioContext = class {
    currentTime = 0;
    destination = {};
    createOscillator() {
      return { frequency: param, connect: (next) => next, start() { tones += 1; window.__chimes = Math.floor(tones / 2); }, stop() {} };
    }
    createGain() {
      return { gain: param, connect: (next) => next };
    }
  };
})();`;

/** Waits until the tab's title reads `title` (a condition in the page, not Vitest's default second of polling). */
const titleBecomes = (page: Page, title: string) => page.waitForFunction((expected) => (globalThis as unknown as { document: { title: string } }).document.title === expected, title);
/** Waits until the page has played `count` chimes (see RECORD_CHIMES). A function, not a string: the console's CSP forbids eval. */
const chimesReach = (page: Page, count: number) => page.waitForFunction((expected) => (globalThis as unknown as { __chimes: number }).__chimes === expected, count);

const notificationsOf = (page: Page) => page.evaluate("window.__notifications") as Promise<{ title: string; body: string }[]>;

// docs/design.md §16 in Chromium: two agents with agent keys, each in a browser of their own, and
// the owner with the admin key, work one inbox. Read state lives on the server, per key.
describe.skipIf(skipWithoutChromium("a team of agents in Chromium"))("a team of agents in Chromium", () => {
  let fixture: ConsoleFixture;
  let second: TestBrowser;
  let ana: Page;
  let ben: Page;
  let owner: Page;
  const keys = { ana: "", ben: "" };

  beforeAll(async () => {
    fixture = await startConsoleFixture();
    second = await launchBrowser();
    const issue = async (name: string) => ((await api(fixture.parley.url, fixture.parley.adminKey, "/v1/admin/keys", { name, scope: "agent" })).json as { key: string }).key;
    keys.ana = await issue("Ana");
    keys.ben = await issue("Ben");
    // Ben's browser may notify: the permission is granted, and each notification is recorded.
    await second.context.grantPermissions(["notifications"], { origin: fixture.parley.url });
    await second.context.addInitScript(RECORD_NOTIFICATIONS);
    ana = await fixture.browser.newPage();
    ben = await second.newPage();
    owner = await fixture.browser.newPage();
  });

  afterAll(async () => {
    await second?.close();
    await fixture?.close();
  });

  const unreadLink = (page: Page, session: string) => page.getByRole("link", { name: new RegExp(`Conversation ${session} .*, \\d+ unread`) });

  it("shows an agent only the inbox: no chatbots, keys, webhooks or usage", async () => {
    await signIn(ana, fixture.parley.url, keys.ana);
    await signIn(ben, fixture.parley.url, keys.ben);
    await signIn(owner, fixture.parley.url, fixture.parley.adminKey);
    for (const page of [ana, ben]) {
      expect(await page.getByRole("navigation", { name: "Console" }).getByRole("link").allTextContents()).toEqual(["Inbox"]);
      // An address an agent may not use shows the inbox, never a screen of refusals.
      await page.goto(`${fixture.parley.url}/console/#/keys`);
      await page.getByRole("heading", { name: "Inbox" }).waitFor();
      expect(await page.getByRole("heading", { name: "API keys" }).count()).toBe(0);
    }
    expect(await owner.getByRole("navigation", { name: "Console" }).getByRole("link").allTextContents()).toEqual(["Inbox", "Chatbots", "API keys", "Webhooks", "Usage"]);
    // And the API agrees: the agents' keys cannot touch keys or chatbots.
    expect((await api(fixture.parley.url, keys.ana, "/v1/admin/keys")).status).toBe(403);
    expect((await api(fixture.parley.url, keys.ben, "/v1/admin/chatbots", { name: "x", provider: "openai", model: "m" })).status).toBe(403);
  });

  it("marks a visitor's message unread for both agents, in the tab title, with a notification once Ben turns them on", async () => {
    await ben.getByLabel("Show a desktop notification").check();
    expect(await ben.getByLabel("Show a desktop notification").isChecked()).toBe(true);
    await Promise.all([ana, ben].map((page) => page.getByRole("status").filter({ hasText: /^Live$/ }).waitFor()));
    expect((await fixture.chat("My kettle will not boil.", "visitor-team")).status).toBe(200);
    for (const page of [ana, ben, owner]) {
      await unreadLink(page, "visitor-team").waitFor();
      await titleBecomes(page, "(1) Parley console");
    }
    await ben.waitForFunction(() => (globalThis as unknown as { __notifications: unknown[] }).__notifications.length > 0);
    expect(await notificationsOf(ben)).toEqual([{ title: "New message from visitor-team", body: "My kettle will not boil." }]);
    // Ana never turned notifications on: her browser was not even asked.
    expect(await ana.evaluate("Notification.permission")).toBe("default");
    await screenshot(ben, "agent-inbox");
  });

  it("lets Ana take over and reply, and Ben sees her reply by name and the takeover on the timeline", async () => {
    await unreadLink(ana, "visitor-team").click();
    await ana.getByRole("button", { name: "Take over" }).click();
    await ana.getByLabel(/Reply to the visitor/).fill("Ana here: try holding the power button for five seconds.");
    await ana.getByRole("button", { name: "Send reply" }).click();
    await ana.getByText("Ana (agent)").waitFor();
    // Opening the conversation read it, for Ana only.
    await titleBecomes(ana, "Parley console");
    expect(await ben.title()).toBe("(1) Parley console");

    await unreadLink(ben, "visitor-team").click();
    await ben.getByText("Ana took the conversation over").waitFor();
    await ben.getByText("Ana (agent)").waitFor();
    await ben.getByText("Ana here: try holding the power button for five seconds.").waitFor();
    await titleBecomes(ben, "Parley console");
    await ben.getByLabel(/Reply to the visitor/).fill("Ben here too, if that does not work: **reset** it as https://kettlebird.example/reset says.");
    await ben.getByLabel(/Reply to the visitor/).press("Enter");
    await ana.getByText("Ben (agent)").waitFor();
    // An agent's reply is the text typed (the asterisks stay), with its web address a link.
    const bens = ana.locator("li.message.agent").filter({ hasText: "Ben here too" }).locator(".content");
    await bens.waitFor();
    expect(await bens.textContent()).toBe("Ben here too, if that does not work: **reset** it as https://kettlebird.example/reset says.");
    const link = bens.getByRole("link", { name: "https://kettlebird.example/reset" });
    expect(await link.evaluate((a) => [a.getAttribute("href"), a.getAttribute("target"), a.getAttribute("rel")])).toEqual(["https://kettlebird.example/reset", "_blank", "noopener noreferrer"]);
    await ben.getByRole("button", { name: "Hand back to the bot" }).click();
    await ana.getByText("Ben handed the conversation back to the bot").waitFor();
    await screenshot(ana, "agent-conversation");
    // The owner sees both names too.
    await owner.getByRole("link", { name: /Conversation visitor-team/ }).click();
    await owner.getByText("Ben (agent)").waitFor();
    expect(await owner.getByText("Ana (agent)").count()).toBe(1);
  });

  it("keeps unread marks on the server: they survive a reload and follow an agent to another browser", async () => {
    await ana.goto(`${fixture.parley.url}/console/#/inbox`);
    await ben.goto(`${fixture.parley.url}/console/#/inbox`);
    // Ben is notified only of conversations that are not open: the inbox is open, none is.
    expect((await fixture.chat("Is descaling covered by the warranty?", "visitor-second")).status).toBe(200);
    await unreadLink(ana, "visitor-second").waitFor();
    await ana.reload();
    await unreadLink(ana, "visitor-second").waitFor();
    await titleBecomes(ana, "(1) Parley console");
    await unreadLink(ana, "visitor-second").click();
    await ana.getByText("Is descaling covered by the warranty?").waitFor();
    await titleBecomes(ana, "Parley console");

    // Ana signs in on Ben's browser, in a tab of its own: what she read is read there too,
    // while Ben has still to read it.
    const anaElsewhere = await second.newPage();
    await signIn(anaElsewhere, fixture.parley.url, keys.ana);
    await anaElsewhere.getByRole("link", { name: /Conversation visitor-second/ }).waitFor();
    expect(await unreadLink(anaElsewhere, "visitor-second").count()).toBe(0);
    expect(await anaElsewhere.title()).toBe("Parley console");
    await ben.reload();
    await unreadLink(ben, "visitor-second").waitFor();
    expect(await ben.title()).toBe("(1) Parley console");
    await anaElsewhere.close();
  });

  it("plays a sound for a visitor's message elsewhere only for the agent who turned it on", async () => {
    for (const page of [ana, ben]) {
      await page.goto(`${fixture.parley.url}/console/#/inbox`);
      await page.getByLabel("Play a sound").waitFor();
      await page.evaluate(RECORD_CHIMES);
    }
    expect(await ana.getByLabel("Play a sound").isChecked()).toBe(false);
    await ana.getByLabel("Play a sound").check();
    // Turning it on plays it once, so the agent knows what to listen for.
    await chimesReach(ana, 1);
    expect((await fixture.chat("Is anyone there?", "visitor-sound")).status).toBe(200);
    await chimesReach(ana, 2);
    await unreadLink(ben, "visitor-sound").waitFor();
    expect(await ben.evaluate("window.__chimes")).toBe(0);
    // The choice is kept in Ana's browser across a reload.
    await ana.reload();
    expect(await ana.getByLabel("Play a sound").isChecked()).toBe(true);
  });

  it("says why a conversation needs attention, and collapses a long message with “show all”", async () => {
    fixture.openai.chat.enqueue(replyWith("   "));
    const long = `${"The kettle clicks off too early. ".repeat(120)}The end.`;
    expect((await fixture.chat(long, "visitor-long")).status).toBe(200);
    fixture.openai.chat.enqueue(failWith(400));
    expect((await fixture.chat("Is anyone answering?", "visitor-unanswered")).status).toBe(500);
    await owner.goto(`${fixture.parley.url}/console/#/inbox`);
    // The badge's reason is short enough for a phone; its title and the conversation say it whole.
    const badgeOf = (session: string) => owner.getByRole("link", { name: new RegExp(`Conversation ${session}`) }).locator(".badge.attention");
    await badgeOf("visitor-unanswered").waitFor();
    expect(await badgeOf("visitor-unanswered").textContent()).toBe("Needs attention: no reply");
    expect(await badgeOf("visitor-unanswered").getAttribute("title")).toBe("the AI provider failed to answer, or the server stopped mid-reply");
    expect(await badgeOf("visitor-long").textContent()).toBe("Needs attention: fallback reply");
    await owner.getByRole("link", { name: /Conversation visitor-unanswered/ }).click();
    await owner.getByRole("note").filter({ hasText: "Needs attention: the AI provider failed to answer, or the server stopped mid-reply. An agent's reply clears this." }).waitFor();
    await owner.goto(`${fixture.parley.url}/console/#/inbox`);
    await owner.getByRole("link", { name: /Conversation visitor-long/ }).click();
    await owner.getByText("Needs attention: the bot gave its fallback reply.", { exact: false }).waitFor();
    const message = owner.locator(".message.user").filter({ hasText: "The kettle clicks off too early." });
    expect(await message.getByText("The end.").count()).toBe(0);
    await message.getByRole("button", { name: /Show all/ }).click();
    await message.getByText(/The end\.$/).waitFor();
    expect(second.problems).toEqual([]);
    expect(fixture.browser.problems).toEqual([]);
  });
});
