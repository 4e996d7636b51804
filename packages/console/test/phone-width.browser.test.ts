import { failWith } from "@parley/providers/testing";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skipWithoutChromium } from "./support/browser.js";
import { startConsoleFixture, type ConsoleFixture } from "./support/console-fixture.js";
import { api, nav, screenshot, signIn } from "./support/console-page.js";

const PHONE = { width: 375, height: 812 };

/** Every visible element that reaches past the viewport's edges, and the page's own scroll width (run in the page). */
const OVERFLOW = `(() => {
  const width = document.documentElement.clientWidth;
  const wide = [];
  for (const element of document.querySelectorAll("body *")) {
    const box = element.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    if (box.left < -1 || box.right > width + 1) wide.push(element.tagName.toLowerCase() + "." + element.className + " " + Math.round(box.left) + "–" + Math.round(box.right));
  }
  return { scrollWidth: document.documentElement.scrollWidth, width, wide: wide.slice(0, 8) };
})()`;

const overflowOf = (page: Page) => page.evaluate(OVERFLOW) as Promise<{ scrollWidth: number; width: number; wide: string[] }>;

/** Asserts the screen fits a phone's width: nothing wider than the viewport, no sideways scrolling. */
async function expectFits(page: Page, screen: string) {
  const found = await overflowOf(page);
  expect({ screen, ...found }).toEqual({ screen, scrollWidth: PHONE.width, width: PHONE.width, wide: [] });
  await screenshot(page, `phone-${screen}`);
}

// docs/design.md §16 and the "every screen at 375 px": each screen of the console in
// Chromium at a phone's width, with the data that made them overflow before (long addresses,
// tables, the chart), and the forms' errors where the eye is.
describe.skipIf(skipWithoutChromium("the console at phone width (375 px) in Chromium"))("the console at phone width (375 px) in Chromium", () => {
  let fixture: ConsoleFixture;
  let page: Page;
  let conversationId = "";

  beforeAll(async () => {
    fixture = await startConsoleFixture();
    page = await fixture.browser.newPage();
    await page.setViewportSize(PHONE);
    const { url, adminKey } = fixture.parley;
    await fixture.chat("Does the kettle keep water warm for a long time, and can I change the temperature from the app?", "visitor-on-a-phone-with-a-long-session-name");
    await api(url, adminKey, "/v1/admin/webhooks", { url: `${fixture.receiver.url}/a/rather/long/path/for/a/webhook/that/would/not/fit/on/a/phone` });
    const listed = (await api(url, adminKey, "/v1/admin/conversations")).json as { data: { id: string }[] };
    conversationId = listed.data[0]!.id;
  });

  afterAll(() => fixture?.close());

  it("fits the sign-in screen", async () => {
    await page.goto(`${fixture.parley.url}/console/`);
    await page.getByRole("heading", { name: "Parley console" }).waitFor();
    await expectFits(page, "sign-in");
  });

  it("fits the inbox, with a compact navigation on one row", async () => {
    await signIn(page, fixture.parley.url, fixture.parley.adminKey);
    await page.getByRole("link", { name: /Conversation visitor-on-a-phone/ }).waitFor();
    const links = await page.getByRole("navigation", { name: "Console" }).getByRole("link").evaluateAll((elements) => elements.map((element) => element.getBoundingClientRect().top));
    expect(new Set(links.map(Math.round)).size).toBe(1);
    await expectFits(page, "inbox");
  });

  it("fits a conversation, and keeps a draft across a reload, counts characters and shows a refusal under the reply box", async () => {
    await page.getByRole("link", { name: /Conversation visitor-on-a-phone/ }).click();
    await page.getByText("Does the kettle keep water warm", { exact: false }).waitFor();
    const box = page.getByLabel(/Reply to the visitor/);
    await box.fill("A draft the agent has not sent yet.");
    await page.reload();
    // The counter shows once the draft is back in the box.
    await page.getByText("35 / 32,000 characters").waitFor();
    expect(await box.inputValue()).toBe("A draft the agent has not sent yet.");
    // Over the limit: the counter says so, the API's refusal shows right under the box, and the text stays.
    const tooLong = "x".repeat(32_001);
    await box.fill(tooLong);
    await page.getByText("32,001 / 32,000 characters: 1 too many").waitFor();
    await box.press("Enter");
    const refusal = page.locator("form.reply").getByRole("alert");
    await refusal.filter({ hasText: "content: must be at most 32000 characters" }).waitFor();
    expect(await box.inputValue()).toHaveLength(32_001);
    // Editing the text takes the refusal away: it was about the text as it was.
    await box.fill("A short reply.");
    await refusal.waitFor({ state: "detached" });
    expect(await box.getAttribute("aria-invalid")).toBe("false");
    // Nor does a refusal follow the agent to the next conversation opened (a notification's link).
    await box.fill(tooLong);
    await box.press("Enter");
    await refusal.waitFor();
    await fixture.chat("Is the lid dishwasher safe?", "visitor-second-phone");
    const listed = (await api(fixture.parley.url, fixture.parley.adminKey, "/v1/admin/conversations")).json as { data: { id: string; session_id: string }[] };
    const other = listed.data.find((conversation) => conversation.session_id === "visitor-second-phone")!.id;
    await page.evaluate(`location.hash = "#/conversations/${other}"`);
    await page.getByText("Is the lid dishwasher safe?").waitFor();
    expect(await refusal.count()).toBe(0);
    await page.evaluate(`location.hash = "#/conversations/${conversationId}"`);
    await page.getByText("Does the kettle keep water warm", { exact: false }).waitFor();
    expect(await box.inputValue()).toHaveLength(32_001);
    expect(await refusal.count()).toBe(0);
    await box.fill("A short reply.");
    await expectFits(page, "conversation");
  });

  it("fits the chatbots, a chatbot and its knowledge, where a failed ingestion says it failed", async () => {
    await nav(page, "Chatbots").click();
    await page.getByRole("heading", { name: "Chatbots" }).waitFor();
    await page.getByRole("row").filter({ hasText: "Kettlebird Support" }).waitFor();
    await expectFits(page, "chatbots");
    await page.getByRole("link", { name: "Kettlebird Support", exact: true }).click();
    await page.getByRole("heading", { name: /Kettlebird Support/ }).first().waitFor();
    // The Widget section (a chunk of its own) with its snippet, the longest line of the page.
    await page.getByRole("region", { name: "Widget", exact: true }).getByRole("button", { name: "Copy the snippet" }).waitFor();
    await expectFits(page, "chatbot");
    await page.goto(`${fixture.parley.url}/console/#/chatbots/${fixture.parley.chatbotId}/knowledge`);
    await page.getByRole("heading", { name: /Knowledge of/ }).waitFor();
    await page.getByRole("row").first().waitFor();
    // Nothing listens on port 9 of 127.0.0.1: the page cannot be read, and the ingestion fails.
    await page.getByLabel("Web address").fill("http://127.0.0.1:9/help/a-page-that-cannot-be-fetched");
    await page.getByRole("button", { name: "Add", exact: true }).click();
    const failed = page.locator(".ingestion.failed");
    await failed.getByText("✕ Failed").waitFor();
    expect(await failed.locator("progress").count()).toBe(0);
    await expectFits(page, "knowledge");
  });

  it("fits the keys and the webhooks, where a refused address stays in its field with the error beside it", async () => {
    await nav(page, "API keys").click();
    await page.getByRole("row").filter({ hasText: "console" }).waitFor();
    await expectFits(page, "keys");
    await nav(page, "Webhooks").click();
    await page.getByText("/a/rather/long/path", { exact: false }).waitFor();
    await page.getByLabel("URL").fill("ftp://example.com/hook");
    await page.getByRole("button", { name: "Add webhook" }).click();
    await page.locator("form.inline + *").getByRole("alert").or(page.getByRole("alert")).first().waitFor();
    expect(await page.getByLabel("URL").inputValue()).toBe("ftp://example.com/hook");
    await expectFits(page, "webhooks");
  });

  it("fits the usage screen, its chart and its legend, readable without hovering", async () => {
    await nav(page, "Usage").click();
    await page.locator(".chart canvas").waitFor();
    const legend = await page.locator(".chart .u-legend").innerText();
    expect(legend).toContain("Messages per day");
    expect(legend).toMatch(/Used this month: \d+/);
    expect(legend).toContain("Plan limit: 1,000 (above the top of the chart)");
    expect(legend).not.toContain("--");
    // Each colour key stays beside its label, even the long one that wraps at this width.
    const apart = await page.locator(".chart .u-legend th").evaluateAll((cells) =>
      cells.flatMap((cell) => {
        const marker = cell.querySelector(".u-marker")!.getBoundingClientRect();
        const label = cell.querySelector(".u-label")!.getBoundingClientRect();
        return marker.top >= label.top && marker.bottom <= label.bottom ? [] : [cell.textContent];
      }),
    );
    expect(apart).toEqual([]);
    await expectFits(page, "usage");
  });

  it("fits an agent's inbox", async () => {
    const agentKey = ((await api(fixture.parley.url, fixture.parley.adminKey, "/v1/admin/keys", { name: "Ana", scope: "agent" })).json as { key: string }).key;
    // A conversation whose reply failed: its "Needs attention" badge keeps to one line.
    fixture.openai.chat.enqueue(failWith(400));
    expect((await fixture.chat("Hello? Is anyone there?", "visitor-left-unanswered")).status).toBe(500);
    const agent = await fixture.browser.newPage();
    await agent.setViewportSize(PHONE);
    await signIn(agent, fixture.parley.url, agentKey);
    await agent.getByRole("link", { name: /Conversation visitor-on-a-phone/ }).waitFor();
    await agent.getByRole("link", { name: /Conversation visitor-left-unanswered/ }).getByText("Needs attention: no reply").waitFor();
    await expectFits(agent, "agent-inbox");
    await agent.close();
  });

  it("asks again before revoking the key in use, says it signs you out, and does", async () => {
    await nav(page, "API keys").click();
    const row = page.getByRole("row").filter({ hasText: "In use here" });
    await row.getByRole("button", { name: "Revoke" }).click();
    await row.getByText("is the key you are signed in with. Revoking it signs you out of this console at once", { exact: false }).waitFor();
    await row.getByRole("button", { name: "Cancel" }).click();
    expect((await api(fixture.parley.url, fixture.parley.adminKey, "/v1/admin/usage")).status).toBe(200);
    await row.getByRole("button", { name: "Revoke" }).click();
    await row.getByRole("button", { name: "Revoke it and sign out" }).click();
    await page.getByRole("alert").filter({ hasText: "You revoked the key you were signed in with" }).waitFor();
    expect((await api(fixture.parley.url, fixture.parley.adminKey, "/v1/admin/usage")).status).toBe(401);
    expect(fixture.browser.problems).toEqual([]);
    expect(conversationId).not.toBe("");
  });
});
