import { createHmac } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skipWithoutChromium } from "./support/browser.js";
import { startConsoleFixture, type ConsoleFixture } from "./support/console-fixture.js";
import { api, screenshot, signIn } from "./support/console-page.js";
import { tinyPdf } from "./support/tiny-pdf.js";

/** The widget settings of the admin chatbot view (docs/design.md §14). */
interface Widget {
  enabled: boolean;
  allowed_origins: string[];
  title: string;
  welcome_message: string;
  starter_questions: string[];
  accent_color: string;
  position: "right" | "left";
  identity_required: boolean;
  has_secret: boolean;
}

/** Waits until an ingestion has finished, polling the API (the outcome is its status, not a time). */
async function ingested(url: string, key: string, ingestion: { id: string }): Promise<{ status: string }> {
  for (;;) {
    const { json } = await api(url, key, `/v1/admin/ingestions/${ingestion.id}`);
    const status = (json as { status: string }).status;
    if (status !== "queued" && status !== "running") return json as { status: string };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// docs/design.md §14, the console's part: a chatbot's Widget section in Chromium, against a real
// `parley serve`, and a reply's sources and rating in the conversation view.
describe.skipIf(skipWithoutChromium("the console's Widget section in Chromium"))("the console's Widget section in Chromium", () => {
  let fixture: ConsoleFixture;
  let page: Page;
  let site: Server;
  let siteAddress = "";
  let widgetPage = "";

  const widgetOf = async () => ((await api(fixture.parley.url, fixture.parley.adminKey, `/v1/admin/chatbots/${fixture.parley.chatbotId}`)).json as { widget: Widget }).widget;
  /** A visitor session of the public widget route, for `userId` with the hash a host site makes with `secret`. */
  const startSession = async (userId: string, secret: string) => {
    const response = await fetch(`${fixture.parley.url}/v1/widget/${fixture.parley.chatbotId}/sessions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ user_id: userId, user_hash: createHmac("sha256", secret).update(userId).digest("hex") }),
    });
    const body = (await response.json()) as { session_id?: string; detail?: string };
    return response.status === 201 ? { status: 201, sessionId: body.session_id } : { status: response.status, detail: body.detail };
  };
  const section = () => page.getByRole("region", { name: "Widget", exact: true });

  beforeAll(async () => {
    fixture = await startConsoleFixture();
    page = await fixture.browser.newPage();
    site = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      response.end("<html><head><title>Aurora colours</title></head><body><main><h1>Aurora colours</h1><p>The Kettlebird Aurora comes in the colour called Fjord Teal.</p></main></body></html>");
    });
    await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
    siteAddress = `http://127.0.0.1:${(site.address() as AddressInfo).port}/aurora-colours.html`;
    widgetPage = `${fixture.parley.url}/console/#/chatbots/${fixture.parley.chatbotId}`;
    // The demo chatbot's widget as a chatbot's is at first, whatever the quickstart set up.
    const reset = await fetch(`${fixture.parley.url}/v1/admin/chatbots/${fixture.parley.chatbotId}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${fixture.parley.adminKey}`, "content-type": "application/json" },
      body: JSON.stringify({ widget: { enabled: false, allowed_origins: [], title: null, welcome_message: "", starter_questions: [], accent_color: "#2563eb", position: "right", identity_required: false } }),
    });
    expect(reset.status).toBe(200);
    await signIn(page, fixture.parley.url, fixture.parley.adminKey);
  });

  afterAll(async () => {
    site?.close();
    await fixture?.close();
  });

  it("starts with the widget off, then refuses an origin with a path next to the field, keeping what was typed", async () => {
    // The section's code is a chunk of its own, fetched with a chatbot's page, not with the console.
    const widgetChunk = () => fixture.browser.requests.some((url) => /\/console\/assets\/widget-section-[\w-]+\.js$/.test(url));
    expect(widgetChunk()).toBe(false);
    await page.goto(widgetPage);
    await section().getByText("Widget off", { exact: true }).waitFor();
    expect(widgetChunk()).toBe(true);
    expect(await section().getByLabel("Turn the widget on").isChecked()).toBe(false);
    await section().getByText("Turn the widget on and save to see it here").waitFor();

    await section().getByLabel("Turn the widget on").check();
    const origins = section().getByLabel("Allowed origins");
    await origins.fill("https://shop.example\nhttps://shop.example/checkout");
    await section().getByRole("button", { name: "Save widget settings" }).click();
    // The server's own words, under the field they name, and the field marked invalid.
    const refusal = page.locator("#widget-origins-note").getByRole("alert");
    await refusal.filter({ hasText: /^“https:\/\/shop\.example\/checkout” was refused\. widget\.allowed_origins\.1: / }).waitFor();
    expect(await origins.getAttribute("aria-invalid")).toBe("true");
    expect(await page.getByRole("alert").count()).toBe(1);
    expect(await origins.inputValue()).toBe("https://shop.example\nhttps://shop.example/checkout");
    expect(await widgetOf()).toMatchObject({ enabled: false, allowed_origins: [] });
  });

  it("saves valid settings, and shows them after a reload", async () => {
    await section().getByLabel("Allowed origins").fill("https://shop.example\n\n  http://127.0.0.1:5173  \n");
    await section().getByLabel("Title").fill("Kettlebird help");
    await section().getByLabel("Welcome message").fill("Hello! Ask me about your kettle.");
    await section().getByLabel("Starter question 1").fill("How long is the warranty?");
    await section().getByLabel("Starter question 3").fill("How do I descale it?");
    await section().getByLabel("Accent colour").fill("#0f766e");
    await section().getByLabel("Left").check();
    await section().getByRole("button", { name: "Save widget settings" }).click();
    await section().getByText("Saved: the widget is on.").waitFor();
    expect(await page.getByRole("alert").count()).toBe(0);
    const saved = {
      enabled: true,
      allowed_origins: ["https://shop.example", "http://127.0.0.1:5173"],
      title: "Kettlebird help",
      welcome_message: "Hello! Ask me about your kettle.",
      starter_questions: ["How long is the warranty?", "How do I descale it?"],
      accent_color: "#0f766e",
      position: "left",
      identity_required: false,
    };
    expect(await widgetOf()).toMatchObject(saved);

    await page.reload();
    await section().getByText("Widget on", { exact: true }).waitFor();
    expect(await section().getByLabel("Turn the widget on").isChecked()).toBe(true);
    expect(await section().getByLabel("Allowed origins").inputValue()).toBe("https://shop.example\nhttp://127.0.0.1:5173");
    expect(await section().getByLabel("Title").inputValue()).toBe("Kettlebird help");
    expect(await section().getByLabel("Welcome message").inputValue()).toBe("Hello! Ask me about your kettle.");
    expect(await section().getByLabel(/^Starter question \d$/).evaluateAll((inputs) => inputs.map((input) => (input as unknown as { value: string }).value))).toEqual([
      "How long is the warranty?",
      "How do I descale it?",
      "",
      "",
    ]);
    expect(await section().getByLabel("Accent colour").inputValue()).toBe("#0f766e");
    expect(await section().getByLabel("Left").isChecked()).toBe(true);

    // A blank title goes back to the chatbot's name.
    await section().getByLabel("Title").fill("");
    await section().getByRole("button", { name: "Save widget settings" }).click();
    await section().getByText("Saved: the widget is on.").waitFor();
    expect((await widgetOf()).title).toBe("Kettlebird Support");
    expect(await section().getByLabel("Title").inputValue()).toBe("Kettlebird Support");
  });

  it("makes an identity secret shown once, which verifies a visitor, and rotates it after asking", async () => {
    await section().getByText("No secret yet").waitFor();
    await section().getByRole("button", { name: "Make a secret" }).click();
    const value = section().locator(".secret-value");
    const secret = (await value.textContent()) ?? "";
    expect(secret.length).toBeGreaterThanOrEqual(32);
    expect((await widgetOf()).has_secret).toBe(true);
    await screenshot(page, "chatbot-widget-secret");
    // The secret is the one the server checks a visitor's user_hash against.
    expect(await startSession("customer-42", secret)).toEqual({ status: 201, sessionId: "user-customer-42" });

    await section().getByRole("button", { name: "I have copied it" }).click();
    expect(await value.count()).toBe(0);
    await page.reload();
    await section().getByText("A secret is set.").waitFor();
    expect(await page.getByText(secret).count()).toBe(0);

    await section().getByRole("button", { name: "Rotate the secret" }).click();
    await section().getByRole("button", { name: "Yes, rotate it" }).click();
    const rotated = (await value.textContent()) ?? "";
    expect(rotated).not.toBe(secret);
    expect(rotated.length).toBeGreaterThanOrEqual(32);
    // The old secret stops verifying at once; the new one does.
    expect(await startSession("customer-42", secret)).toEqual({ status: 403, detail: "The visitor's identity could not be verified." });
    expect(await startSession("customer-42", rotated)).toEqual({ status: 201, sessionId: "user-customer-42" });
    await section().getByRole("button", { name: "I have copied it" }).click();
  });

  it("copies the snippet for this server and chatbot", async () => {
    await fixture.browser.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: fixture.parley.url });
    const snippet = `<script src="${fixture.parley.url}/widget.js" data-chatbot-id="${fixture.parley.chatbotId}" async></script>`;
    expect(await section().locator(".snippet").textContent()).toBe(snippet);
    await section().getByRole("button", { name: "Copy the snippet" }).click();
    await section().getByRole("status").filter({ hasText: "Copied." }).waitFor();
    expect(await page.evaluate("navigator.clipboard.readText()")).toBe(snippet);
  });

  it("previews the widget while it is on", async () => {
    // The preview is the widget's own frame page, in a frame titled for it, showing the saved settings.
    await section().getByTitle("Widget preview").waitFor();
    expect(await section().locator("iframe.preview").getAttribute("src")).toBe(`/widget/${fixture.parley.chatbotId}`);
    const preview = section().frameLocator("iframe.preview");
    await preview.getByRole("textbox", { name: "Message" }).waitFor();
    await preview.getByText("Hello! Ask me about your kettle.").waitFor();
    await preview.getByRole("button", { name: "How long is the warranty?" }).waitFor();
    await section().scrollIntoViewIfNeeded();
    await screenshot(page, "chatbot-widget");
  });

  it("never shows an agent the Widget section, whose routes refuse an agent's key", async () => {
    const agentKey = ((await api(fixture.parley.url, fixture.parley.adminKey, "/v1/admin/keys", { name: "Ana", scope: "agent" })).json as { key: string }).key;
    const agent = await fixture.browser.newPage();
    await signIn(agent, fixture.parley.url, agentKey);
    await agent.goto(widgetPage);
    await agent.getByRole("heading", { name: "Inbox" }).waitFor();
    expect(await agent.getByRole("region", { name: "Widget", exact: true }).count()).toBe(0);
    expect(await agent.getByRole("button", { name: /Save widget settings|Make a secret|Rotate the secret/ }).count()).toBe(0);
    await agent.close();
    const patch = await fetch(`${fixture.parley.url}/v1/admin/chatbots/${fixture.parley.chatbotId}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${agentKey}`, "content-type": "application/json" },
      body: JSON.stringify({ widget: { enabled: false } }),
    });
    expect(patch.status).toBe(403);
    expect((await api(fixture.parley.url, agentKey, `/v1/admin/chatbots/${fixture.parley.chatbotId}/widget-secret`, {})).status).toBe(403);
    expect((await widgetOf()).enabled).toBe(true);
  });

  it("shows a reply's sources: a web page as a link, a PDF by file name and page", async () => {
    const { url, adminKey, chatbotId } = fixture.parley;
    const added = await api(url, adminKey, `/v1/admin/chatbots/${chatbotId}/documents`, { url: siteAddress });
    expect(added.status).toBe(202);
    expect((await ingested(url, adminKey, added.json as { id: string })).status).toBe("succeeded");
    const form = new FormData();
    form.append("files", new Blob([tinyPdf(["Kettlebird Aurora care guide.", "The descaling interval of the Kettlebird Aurora is 47 days."])], { type: "application/pdf" }), "aurora-care.pdf");
    const upload = await fetch(`${url}/v1/admin/chatbots/${chatbotId}/documents`, { method: "POST", headers: { authorization: `Bearer ${adminKey}` }, body: form });
    expect(upload.status).toBe(202);
    expect((await ingested(url, adminKey, (await upload.json()) as { id: string })).status).toBe("succeeded");

    expect((await fixture.chat("The Kettlebird Aurora: which colour is it, and what is its descaling interval?", "visitor-aurora")).status).toBe(200);
    const list = (await api(url, adminKey, "/v1/admin/conversations?limit=100")).json as { data: { id: string; session_id: string }[] };
    const id = list.data.find((conversation) => conversation.session_id === "visitor-aurora")!.id;
    const detail = (await api(url, adminKey, `/v1/admin/conversations/${id}`)).json as { messages: { author: string; sources: { title: string; source: string; page: number | null }[] }[] };
    const cited = detail.messages.find((message) => message.author === "model")!.sources;
    const web = cited.find((source) => source.source === siteAddress);
    const pdf = cited.find((source) => source.source === "aurora-care.pdf");
    expect(web).toBeDefined();
    expect(pdf?.page).toBe(1);

    await page.goto(`${url}/console/#/conversations/${id}`);
    const sources = page.getByRole("list", { name: "Sources:" });
    await sources.waitFor();
    const link = sources.getByRole("link", { name: web!.title });
    expect(await link.getAttribute("href")).toBe(siteAddress);
    expect(await link.getAttribute("target")).toBe("_blank");
    expect(await link.getAttribute("rel")).toBe("noopener noreferrer");
    const pdfLabel = pdf!.title === pdf!.source ? "aurora-care.pdf, page 1" : `${pdf!.title} (aurora-care.pdf, page 1)`;
    await sources.getByRole("listitem").filter({ hasText: pdfLabel }).waitFor();
    expect(await sources.getByRole("listitem").count()).toBe(cited.length);
    await screenshot(page, "conversation-sources");
  });

  it("shows the visitor's rating of a reply, with their comment, beside its sources", async () => {
    const { url, chatbotId } = fixture.parley;
    const widgetApi = async (path: string, token: string | null, body: unknown) => {
      const response = await fetch(`${url}/v1/widget/${chatbotId}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, json: (text ? JSON.parse(text) : undefined) as unknown };
    };
    const session = await widgetApi("/sessions", null, {});
    expect(session.status).toBe(201);
    const { session_id: sessionId, token } = session.json as { session_id: string; token: string };
    const asked = await widgetApi("/messages", token, { message: "How long is the warranty of the kettle?" });
    expect(asked.status).toBe(200);
    const reply = (asked.json as { reply: { id: string; sources: unknown[] } }).reply;
    expect(reply.sources.length).toBeGreaterThan(0);
    const list = (await api(url, fixture.parley.adminKey, "/v1/admin/conversations?limit=100")).json as { data: { id: string; session_id: string }[] };
    const id = list.data.find((conversation) => conversation.session_id === sessionId)!.id;
    await page.goto(`${url}/console/#/conversations/${id}`);
    const replyItem = page.locator(".message.model");
    await replyItem.getByRole("list", { name: "Sources:" }).waitFor();
    expect(await replyItem.locator(".feedback").count()).toBe(0);

    // The visitor rates it in the widget: the open conversation shows it live (message.rated).
    expect((await widgetApi(`/messages/${reply.id}/feedback`, token, { rating: "down", comment: "It did not say <b>which</b> model." })).status).toBe(204);
    const rated = replyItem.filter({ hasText: "Rated not helpful" });
    await rated.waitFor();
    // The comment is the visitor's text: shown as text, never as HTML.
    await rated.getByText("It did not say <b>which</b> model.").waitFor();
    expect(await rated.locator("b").count()).toBe(0);
    expect(await rated.getByRole("list", { name: "Sources:" }).getByRole("listitem").count()).toBe(reply.sources.length);
    await screenshot(page, "conversation-rated");

    // Rating again replaces the rating, live too, and a reload shows the same.
    expect((await widgetApi(`/messages/${reply.id}/feedback`, token, { rating: "up" })).status).toBe(204);
    await replyItem.filter({ hasText: "Rated helpful" }).waitFor();
    await page.reload();
    await replyItem.filter({ hasText: "Rated helpful" }).waitFor();
    expect(await page.getByText("Rated not helpful").count()).toBe(0);
    expect(await page.getByText("It did not say").count()).toBe(0);
  });

  it("counts the visitors' ratings per chatbot on the usage screen, as the API reports them", async () => {
    const { url, adminKey, chatbotId } = fixture.parley;
    const usage = (await api(url, adminKey, "/v1/admin/usage")).json as { feedback_by_chatbot: { chatbot_id: string; up: number; down: number }[] };
    // The reply rated in the test before, down then up: one helpful, none not helpful.
    expect(usage.feedback_by_chatbot).toEqual([{ chatbot_id: chatbotId, up: 1, down: 0 }]);
    await page.goto(`${url}/console/#/usage`);
    const table = page.locator("table.list").filter({ has: page.getByRole("columnheader", { name: "Not helpful", exact: true }) });
    const row = table.locator("tbody tr").filter({ has: page.locator('td[data-label="Helpful"]') }).first();
    await row.waitFor();
    expect(await row.locator('td[data-label="Helpful"]').textContent()).toBe("1");
    expect(await row.locator('td[data-label="Not helpful"]').textContent()).toBe("0");
  });

  it("loaded nothing from another origin and broke no CSP rule", () => {
    const origin = new URL(fixture.parley.url).origin;
    expect(fixture.browser.requests.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith("data:"))).toEqual([]);
    expect(fixture.browser.problems).toEqual([]);
  });
});
