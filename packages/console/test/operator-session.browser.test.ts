import { replyWith } from "@parley/providers/testing";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Locator, Page } from "playwright-core";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skipWithoutChromium } from "./support/browser.js";
import { startConsoleFixture, type ConsoleFixture } from "./support/console-fixture.js";
import { api, nav, screenshot, signIn } from "./support/console-page.js";
import { tinyPdf } from "./support/tiny-pdf.js";

// The proof of docs/design.md §11: the built console, in Debian's Chromium, against a real
// `parley serve` child process whose provider is a fake OpenAI on 127.0.0.1. One operator's
// session, screen by screen, in order.
describe.skipIf(skipWithoutChromium("the console in Chromium"))("the console in Chromium", () => {
  let fixture: ConsoleFixture;
  let page: Page;
  let webhookSecret = "";

  beforeAll(async () => {
    fixture = await startConsoleFixture();
    page = await fixture.browser.newPage();
  });

  afterAll(() => fixture?.close());

  const chat = (message: string, sessionId: string, key?: string) => fixture.chat(message, sessionId, key);


  it("refuses a wrong key and a chat key with the API's words", async () => {
    await page.goto(`${fixture.parley.url}/console`);
    await screenshot(page, "sign-in");
    await page.getByLabel("Admin key").fill("prl_not-a-real-key");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").filter({ hasText: "Invalid or missing API key." }).waitFor();
    await page.getByLabel("Admin key").fill(fixture.parley.chatKey);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").filter({ hasText: "This API key cannot manage chatbots; use a key with the admin scope." }).waitFor();
    expect(await page.evaluate("sessionStorage.length")).toBe(0);
  });

  it("signs in with the admin key, kept in session storage only", async () => {
    await signIn(page, fixture.parley.url, fixture.parley.adminKey);
    expect(await page.evaluate('[sessionStorage.getItem("parley.adminKey"), localStorage.length, document.cookie]')).toEqual([fixture.parley.adminKey, 0, ""]);
    await page.getByRole("status").filter({ hasText: /^Live$/ }).waitFor();
  });

  it("shows a visitor's chat in the inbox live, at the top and unread", async () => {
    const started = performance.now();
    const sent = chat("Does the kettle keep water warm?", "visitor-ada");
    await page.getByRole("link", { name: /Conversation visitor-ada .*unread/ }).waitFor();
    const shownMs = performance.now() - started;
    expect((await sent).status).toBe(200);
    console.log(`console e2e: chat request to its message in the inbox: ${shownMs.toFixed(0)} ms`);
    await chat("And how long is the warranty?", "visitor-bo");
    await page.locator(".inbox li").first().filter({ hasText: "visitor-bo" }).waitFor();
    await chat("One more question about descaling.", "visitor-ada");
    await page.locator(".inbox li").first().filter({ hasText: "visitor-ada" }).waitFor();
    expect(await page.locator(".inbox li.unread").count()).toBe(2);
  });

  it("adds a webhook and shows its secret once", async () => {
    await nav(page, "Webhooks").click();
    await page.getByLabel("URL").fill(fixture.receiver.url);
    await page.getByRole("button", { name: "Add webhook" }).click();
    webhookSecret = (await page.locator(".secret-value").textContent()) ?? "";
    expect(webhookSecret).toMatch(/^whsec_/);
    await page.getByRole("button", { name: "I have copied it" }).click();
    await page.getByRole("list", { name: "Webhooks" }).getByText(fixture.receiver.url).waitFor();
    expect(await page.locator(".secret-value").count()).toBe(0);
  });

  it("takes a conversation over, replies with Enter, and the reply reaches the webhook as message.sent", async () => {
    await nav(page, "Inbox").click();
    await page.getByRole("link", { name: /Conversation visitor-ada/ }).click();
    await page.getByText("Does the kettle keep water warm?").waitFor();
    expect(await page.locator(".inbox li.unread").count()).toBe(0);
    await page.getByRole("button", { name: "Take over" }).click();
    await page.getByText("Taken over by an agent").waitFor();
    const visitor = await chat("Is a person there?", "visitor-ada");
    expect(visitor).toEqual({ status: 202, json: { response: "" } });
    await page.getByText("Is a person there?").waitFor();

    const reply = page.getByLabel(/Reply to the visitor/);
    await reply.fill("Hello, this is Sam from support.");
    await reply.press("Shift+Enter");
    await reply.pressSequentially("It keeps water warm for 30 minutes.");
    await reply.press("Enter");
    const agentReply = "Hello, this is Sam from support.\nIt keeps water warm for 30 minutes.";
    await page.locator(".message.agent").filter({ hasText: "It keeps water warm for 30 minutes." }).waitFor();
    expect(await reply.inputValue()).toBe("");
    await screenshot(page, "conversation");

    const hook = await fixture.receiver.next((item) => item.body.includes('"message.sent"') && item.body.includes("Sam from support"));
    const event = new Webhook(webhookSecret).verify(hook.body, hook.headers) as { type: string; data: Record<string, unknown> };
    expect(event.type).toBe("message.sent");
    expect(event.data).toMatchObject({ chatbot_id: fixture.parley.chatbotId, session_id: "visitor-ada", role: "assistant", author: "agent", content: agentReply });
  });

  it("hands the conversation back, and the bot answers again", async () => {
    await page.getByRole("button", { name: "Hand back to the bot" }).click();
    await page.getByText("The bot answers").waitFor();
    const answer = await chat("Thanks! What about descaling?", "visitor-ada");
    expect(answer).toEqual({ status: 200, json: { response: "This is the fake model's reply." } });
    await page.locator(".message.model").filter({ hasText: "This is the fake model's reply." }).last().waitFor();
  });

  it("shows hostile visitor text as text, running nothing", async () => {
    const hostile = `<img src=x onerror="globalThis.__owned=1"><script>globalThis.__owned=2</script>`;
    await chat(hostile, "visitor-mallory");
    await nav(page, "Inbox").click();
    await page.getByRole("link", { name: /Conversation visitor-mallory/ }).waitFor();
    await screenshot(page, "inbox");
    await page.getByRole("link", { name: /Conversation visitor-mallory/ }).click();
    await page.locator(".message.user .content").filter({ hasText: hostile }).waitFor();
    expect(await page.locator(".messages img, .messages script").count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as Record<string, unknown>).__owned)).toBeUndefined();
  });

  it("shows a model reply's sources under it, as the API gives them", async () => {
    expect((await chat("How long is the warranty of the kettle?", "visitor-sources")).status).toBe(200);
    const list = (await api(fixture.parley.url, fixture.parley.adminKey, "/v1/admin/conversations?limit=100")).json as { data: { id: string; session_id: string }[] };
    const id = list.data.find((conversation) => conversation.session_id === "visitor-sources")!.id;
    const detail = (await api(fixture.parley.url, fixture.parley.adminKey, `/v1/admin/conversations/${id}`)).json as {
      messages: { author: string; sources: { title: string; source: string; page: number | null }[] }[];
    };
    const cited = detail.messages.find((message) => message.author === "model")!.sources;
    // The demo chatbot's knowledge answers about the warranty: the reply cites it, a file each.
    expect(cited.length).toBeGreaterThan(0);
    expect(cited.map((source) => source.source)).toContain("warranty-and-returns.md");
    await nav(page, "Inbox").click();
    await page.getByRole("link", { name: /Conversation visitor-sources/ }).click();
    const sources = page.getByRole("list", { name: "Sources:" }).getByRole("listitem");
    await sources.first().waitFor();
    // A file by its title and file name, in the API's order.
    expect(await sources.allTextContents()).toEqual(cited.map((source) => (source.title === source.source ? source.source : `${source.title} (${source.source})`)));
  });

  it("shows a model reply's Markdown as the widget does, and runs nothing of a hostile one", async () => {
    fixture.openai.chat.enqueue(replyWith('Steps:\n\n1. Empty it.\n\n2. Boil.\n\n| Model | Capacity |\n|---|--:|\n| K1 | 1.7 L |\n\nNot <img src=x onerror="globalThis.__owned=3"> [this](javascript:globalThis.__owned=4)\n\n- Descale it:\n  - with vinegar'));
    expect((await chat("How do I descale it?", "visitor-markdown")).status).toBe(200);
    await nav(page, "Inbox").click();
    await page.getByRole("link", { name: /Conversation visitor-markdown/ }).click();
    const reply = page.locator(".message.model .content").last();
    await reply.locator("table").waitFor();
    // One numbered list although its items are apart, and the table in a region the keyboard reaches.
    expect(await reply.locator("ol > li").allTextContents()).toEqual(["Empty it.", "Boil."]);
    expect(await reply.getByRole("region", { name: "Table" }).getByRole("columnheader").allTextContents()).toEqual(["Model", "Capacity"]);
    // Bullets count from the reply, not from the list of messages it sits in: a disc, then a circle, as in the widget.
    const bullets = (list: Locator) => list.evaluate((element) => element.ownerDocument.defaultView!.getComputedStyle(element).listStyleType);
    expect([await bullets(reply.locator("ul").first()), await bullets(reply.locator("ul ul"))]).toEqual(["disc", "circle"]);
    expect(await reply.textContent()).toContain('Not <img src=x onerror="globalThis.__owned=3"> this');
    expect(await page.locator(".messages img, .messages script, .messages a[href^='javascript' i]").count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as Record<string, unknown>).__owned)).toBeUndefined();
    // The visitor's own message stays the text they typed.
    expect(await page.locator(".message.user .content").last().evaluate((element) => element.tagName)).toBe("P");
    // The inbox previews the reply's words without its Markdown, in their own direction.
    await nav(page, "Inbox").click();
    const preview = page.getByRole("link", { name: /Conversation visitor-markdown/ }).locator(".preview .text");
    await expect.poll(() => preview.textContent()).toMatch(/^Steps: Empty it\. Boil\. Model Capacity K1 1\.7 L Not <img/);
    expect(await preview.getAttribute("dir")).toBe("auto");
    // A visitor's Arabic message reads right to left, and an agent may answer in Arabic.
    expect((await chat("هل يمكنني تنظيف الغلاية بالخل؟", "visitor-arabic")).status).toBe(200);
    await page.getByRole("link", { name: /Conversation visitor-arabic/ }).click();
    const arabic = page.locator(".message.user .content").filter({ hasText: "بالخل" });
    expect(await arabic.evaluate((element) => element.ownerDocument.defaultView!.getComputedStyle(element).direction)).toBe("rtl");
    expect(await page.getByRole("textbox", { name: /Reply to the visitor/ }).getAttribute("dir")).toBe("auto");
  });

  it("pauses a chatbot (chat answers 403) and resumes it", async () => {
    await nav(page, "Chatbots").click();
    await page.getByRole("link", { name: "Kettlebird Support", exact: true }).click();
    await page.getByRole("button", { name: "Pause" }).click();
    await page.getByText("Paused: chat now answers 403").waitFor();
    await screenshot(page, "chatbot");
    expect(await chat("Hello?", "visitor-cy")).toEqual({ status: 403, json: { detail: "Chatbot is paused by its owner." } });
    await page.getByRole("button", { name: "Resume" }).click();
    await page.getByText("Resumed: the chatbot answers again.").waitFor();
    expect((await chat("Hello?", "visitor-cy")).status).toBe(200);
  });

  it("creates, edits and deletes a chatbot, asking before the delete", async () => {
    await nav(page, "Chatbots").click();
    await page.getByRole("button", { name: "New chatbot" }).click();
    await page.getByLabel("Name").fill("Teapot Helper");
    await page.getByLabel("System prompt").fill("You help with teapots.");
    await page.getByRole("button", { name: "Create chatbot" }).click();
    await page.getByRole("heading", { name: "Teapot Helper" }).waitFor();
    await page.getByLabel("Name").fill("Teapot Helpdesk");
    await page.getByLabel("Fallback message").fill("Please write to tea@example.com.");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("heading", { name: "Teapot Helpdesk", exact: true }).waitFor();
    const id = /#\/chatbots\/([0-9a-f-]{36})/.exec(page.url())?.[1];
    expect((await api(fixture.parley.url, fixture.parley.adminKey, `/v1/chatbots/${id}`)).json).toMatchObject({ name: "Teapot Helpdesk", fallback_message: "Please write to tea@example.com.", system_prompt: "You help with teapots." });
    await page.getByRole("button", { name: "Delete" }).click();
    await page.getByRole("button", { name: "Yes, delete it" }).click();
    await page.getByRole("heading", { name: "Chatbots" }).waitFor();
    await screenshot(page, "chatbots");
    expect(await page.getByRole("link", { name: "Teapot Helpdesk", exact: true }).count()).toBe(0);
    expect((await api(fixture.parley.url, fixture.parley.adminKey, `/v1/chatbots/${id}`)).status).toBe(404);
  });

  it("counts a chatbot's long texts, and shows a refusal under the field it names with what was typed kept", async () => {
    await page.goto(`${fixture.parley.url}/console/#/chatbots/${fixture.parley.chatbotId}`);
    await page.getByRole("button", { name: "Save changes" }).waitFor();
    const before = (await api(fixture.parley.url, fixture.parley.adminKey, `/v1/admin/chatbots/${fixture.parley.chatbotId}`)).json;
    const prompt = page.getByLabel("System prompt");
    const note = page.locator("#system_prompt-note");
    expect(await prompt.getAttribute("aria-describedby")).toBe("system_prompt-note");
    await prompt.fill("x".repeat(32_001));
    await note.getByText("32,001 / 32,000 characters: 1 too many").waitFor();
    expect(await page.locator("#fallback_message-note").textContent()).toMatch(/^[\d,]+ \/ 4,000 characters$/);
    await page.getByRole("button", { name: "Save changes" }).click();
    // The API's refusal names the field: it shows under that field, not at the top of the page.
    await note.getByRole("alert").filter({ hasText: /^system_prompt: / }).waitFor();
    expect(await page.getByRole("alert").count()).toBe(1);
    expect((await prompt.inputValue()).length).toBe(32_001);
    expect((await api(fixture.parley.url, fixture.parley.adminKey, `/v1/admin/chatbots/${fixture.parley.chatbotId}`)).json).toEqual(before);
  });

  it("issues a key shown once, and revokes it", async () => {
    await nav(page, "API keys").click();
    await page.getByLabel("Name").fill("website widget");
    await page.getByRole("button", { name: "Issue key" }).click();
    const key = (await page.locator(".secret-value").textContent()) ?? "";
    expect(key).toMatch(/^prl_/);
    expect((await api(fixture.parley.url, key, "/v1/chatbots")).status).toBe(200);
    await screenshot(page, "keys");
    // The console's own key is marked, a word apart from its name (read aloud as one word before).
    expect(await page.getByRole("row").filter({ hasText: "In use here" }).getByRole("cell").first().textContent()).toBe("console In use here");
    await page.getByRole("button", { name: "I have copied it" }).click();
    const row = page.getByRole("row").filter({ hasText: "website widget" });
    await row.getByRole("button", { name: "Revoke" }).click();
    await row.getByRole("button", { name: "Yes, revoke it" }).click();
    await row.getByText(/Revoked/).waitFor();
    expect((await api(fixture.parley.url, key, "/v1/chatbots")).json).toEqual({ detail: "Invalid or missing API key." });
  });

  it("charts this month's usage against the plan's limit, and counts it per chatbot", async () => {
    // What the API counts after this session's chats: the screen must show these numbers.
    const usage = (await api(fixture.parley.url, fixture.parley.adminKey, "/v1/admin/usage")).json as {
      month: string;
      used: number;
      limit: number;
      remaining: number;
      by_chatbot: { chatbot_id: string; messages: number }[];
    };
    const chatbots = (await api(fixture.parley.url, fixture.parley.adminKey, "/v1/admin/chatbots")).json as { data: { id: string; name: string }[] };
    expect(usage.used).toBeGreaterThan(0);
    expect(usage.by_chatbot.length).toBeGreaterThan(0);
    await nav(page, "Usage").click();
    const summary = page.locator(".summary");
    await summary.filter({ hasText: /messages used on the free plan/ }).waitFor();
    expect(await summary.textContent()).toMatch(new RegExp(`^${usage.used.toLocaleString("en-US")} of 1,000 messages used on the free plan \\(${usage.remaining.toLocaleString("en-US")} left\\)`));
    expect(await page.getByRole("meter", { name: "Share of the monthly limit used" }).getAttribute("value")).toBe(String(usage.used));
    await page.getByRole("img", { name: `Chart of messages per day in ${usage.month}: ${usage.used} of ${usage.limit} used` }).locator("canvas").waitFor();
    // The per-chatbot table (the chart's legend is a table too): its chatbot and messages columns.
    const table = page.locator("table.list").filter({ has: page.getByRole("columnheader", { name: "Messages", exact: true }) });
    const cells = await table.locator("tbody tr").evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll("td")].slice(0, 2).map((cell) => cell.textContent)));
    const nameOf = (id: string) => chatbots.data.find((chatbot) => chatbot.id === id)?.name ?? id;
    expect(cells).toEqual(usage.by_chatbot.map((row) => [nameOf(row.chatbot_id), String(row.messages)]));
    await screenshot(page, "usage");
  });

  it("lists a chatbot's documents, tries a question with ranked chunks, and deletes a document", async () => {
    await nav(page, "Chatbots").click();
    await page.getByRole("link", { name: "Knowledge of Kettlebird Support" }).click();
    const rows = page.getByRole("row").filter({ hasText: "markdown" }); // the quickstart's four documents
    await rows.filter({ hasText: "warranty-and-returns.md" }).waitFor();
    expect(await rows.count()).toBe(4);
    await page.getByRole("textbox", { name: "Question" }).fill("How long is the warranty?");
    await page.getByRole("button", { name: "Search" }).click();
    const first = page.getByRole("list", { name: "Retrieved chunks" }).getByRole("listitem").first();
    await first.filter({ hasText: "2-year limited warranty" }).waitFor();
    expect(await first.textContent()).toMatch(/warranty-and-returns\.md.*keyword rank #1/);
    await screenshot(page, "knowledge");
    const shipping = rows.filter({ hasText: "shipping.md" });
    await shipping.getByRole("button", { name: /^Delete/ }).click();
    await shipping.getByRole("button", { name: "Yes, delete it" }).click();
    await shipping.waitFor({ state: "detached" });
    expect(await rows.count()).toBe(3);
  });

  it("adds a PDF by drag and drop and finds its fact with “try a question”", async () => {
    await nav(page, "Chatbots").click();
    await page.getByRole("link", { name: "Knowledge of Kettlebird Support" }).click();
    await page.getByRole("heading", { name: "Knowledge of Kettlebird Support" }).waitFor();
    const pdf = tinyPdf(["Kettlebird Aurora care guide.", "The descaling interval of the Kettlebird Aurora is 47 days."]).toString("base64");
    // Built in the page: a DataTransfer holding the PDF, as a drag from the desktop carries it.
    const transfer = await page.evaluateHandle(`(() => {
      const bytes = Uint8Array.from(atob("${pdf}"), (character) => character.charCodeAt(0));
      const data = new DataTransfer();
      data.items.add(new File([bytes], "aurora-care.pdf", { type: "application/pdf" }));
      return data;
    })()`);
    await page.locator(".drop-zone").dispatchEvent("drop", { dataTransfer: transfer });
    await page.getByRole("list", { name: "Ingestions" }).getByText("Done").waitFor();
    await page.getByRole("row").filter({ hasText: "aurora-care.pdf" }).waitFor();
    await page.getByRole("textbox", { name: "Question" }).fill("What is the descaling interval of the Aurora?");
    await page.getByRole("button", { name: "Search" }).click();
    const first = page.getByRole("list", { name: "Retrieved chunks" }).getByRole("listitem").first();
    await first.filter({ hasText: "47 days" }).waitFor();
    expect(await first.textContent()).toContain("aurora-care.pdf");
  });

  it("adds a web page by its address and finds its fact", async () => {
    const site = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      response.end("<html><head><title>Aurora colours</title></head><body><main><h1>Aurora colours</h1><p>The Kettlebird Aurora comes in the colour called Fjord Teal.</p></main></body></html>");
    });
    await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
    const address = `http://127.0.0.1:${(site.address() as AddressInfo).port}/aurora-colours.html`;
    try {
      await page.getByLabel("Web address").fill(address);
      await page.getByRole("button", { name: "Add", exact: true }).click();
      await page.getByRole("row").filter({ hasText: address }).waitFor();
      await page.getByRole("textbox", { name: "Question" }).fill("Which colour is the Aurora?");
      await page.getByRole("button", { name: "Search" }).click();
      await page.getByRole("list", { name: "Retrieved chunks" }).getByRole("listitem").first().filter({ hasText: "Fjord Teal" }).waitFor();
      await screenshot(page, "knowledge");
    } finally {
      site.close();
    }
  });

  it("sends a delivery again from its row: the receiver gets the same event a second time, signed again", async () => {
    await nav(page, "Webhooks").click();
    const delivered = page.getByRole("row").filter({ hasText: "message.sent" }).filter({ hasText: "delivered" });
    await delivered.first().waitFor();
    const before = [...fixture.receiver.received];
    const seen = new Set(before.map((hook) => hook.headers["webhook-id"]));
    expect(seen.size).toBe(before.length);
    await delivered.first().getByRole("button", { name: "Retry delivery of message.sent" }).click();
    const again = await fixture.receiver.next((hook) => !before.includes(hook) && seen.has(hook.headers["webhook-id"]));
    const event = new Webhook(webhookSecret).verify(again.body, again.headers) as { type: string };
    expect(event.type).toBe("message.sent");
    // A button on every row is outlined, not filled as the page's own buttons are.
    const background = (name: string) => page.getByRole("button", { name }).first().evaluate((button) => button.ownerDocument.defaultView!.getComputedStyle(button).backgroundColor);
    expect(await background("Retry delivery of message.sent")).toBe("rgb(255, 255, 255)");
    expect(await background("Refresh")).toBe("rgb(37, 99, 235)");
  });

  it("loaded nothing from another origin, never put the key in a URL, and broke no CSP rule", async () => {
    await nav(page, "Webhooks").click();
    const delivered = page.getByRole("row").filter({ hasText: "message.sent" }).filter({ hasText: "delivered" });
    await delivered.first().waitFor();
    await screenshot(page, "webhooks");
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("Admin key").waitFor();
    expect(await page.evaluate("sessionStorage.length")).toBe(0);
    const origin = new URL(fixture.parley.url).origin;
    expect(fixture.browser.requests.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith("data:"))).toEqual([]);
    expect(fixture.browser.requests.filter((url) => url.includes("prl_"))).toEqual([]);
    expect(fixture.browser.problems).toEqual([]);
  });
});
