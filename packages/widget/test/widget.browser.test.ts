import { MAX_MESSAGE_CHARS } from "@parley/core";
import { replyWith, streamWith } from "@parley/providers/testing";
import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Frame, FrameLocator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { skipWithoutChromium } from "../../console/test/support/browser.js";
import { api, LAUNCHER_VISIBLE_AFTER_LOAD, screenshot, startWidgetFixture, type WidgetFixture } from "./support/widget-fixture.js";

// The widget as a visitor meets it (docs/design.md §14): a host page on its own origin embeds the
// snippet of a real `parley serve`; Chromium drives it. The steps share one visitor, in order.

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** The chat frame of a page (the widget's iframe), for locators. */
const chat = (page: Page): FrameLocator => page.frameLocator('iframe[title="Chat"]');

/** The frame object itself, once the iframe has loaded its page. */
async function chatFrame(page: Page): Promise<Frame> {
  const handle = await page.locator('iframe[title="Chat"]').elementHandle();
  const frame = await handle!.contentFrame();
  if (!frame) throw new Error("The Chat iframe has no frame.");
  return frame;
}

/** Axe's serious and critical violations in a frame (axe evaluated through the DevTools protocol: the frame's CSP allows no injected script tag). */
async function axeViolations(frame: Frame): Promise<string[]> {
  await frame.evaluate(AXE);
  const violations = (await frame.evaluate('axe.run(document, { resultTypes: ["violations"] }).then((result) => result.violations)')) as { id: string; impact: string | null; nodes: { target: unknown }[] }[];
  return violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical").map((violation) => `${violation.id}: ${JSON.stringify(violation.nodes.map((node) => node.target))}`);
}

/** Presses Tab (or Shift+Tab) until the element has the focus (at most 40 times), as a keyboard user would. */
async function tabTo(page: Page, isTarget: () => Promise<boolean>, key: "Tab" | "Shift+Tab" = "Tab"): Promise<void> {
  for (let press = 0; press < 40; press += 1) {
    if (await isTarget()) return;
    await page.keyboard.press(key);
  }
  const frame = await chatFrame(page);
  throw new Error(`Tab never reached the element; the focus is on ${await page.evaluate("document.activeElement?.shadowRoot?.activeElement?.outerHTML.slice(0, 80)")} / ${await frame.evaluate("document.activeElement?.outerHTML.slice(0, 80)")}`);
}

const skip = skipWithoutChromium("the widget's browser tests");

describe.skipIf(skip)("the chat widget in Chromium, on a host site", () => {
  let fixture: WidgetFixture;
  let page: Page;

  beforeAll(async () => {
    fixture = await startWidgetFixture(inject("widgetBuild"));
    page = await fixture.browser.newPage();
  });

  afterAll(async () => {
    await fixture?.close();
  });

  it("shows the launcher soon after the host page loads, and opens the chat with its welcome and starter questions", async () => {
    await page.goto(`${fixture.site.origin}/`);
    // From the host page's load event to the launcher laid out on screen, measured in the page.
    const visibleMs = (await page.evaluate(LAUNCHER_VISIBLE_AFTER_LOAD)) as number;
    console.log(`widget: launcher visible ${visibleMs.toFixed(0)} ms after the host page's load event`);
    expect(visibleMs).toBeLessThanOrEqual(300);

    // The host page's `button { background: red !important }` cannot reach into the shadow root.
    const launcher = page.getByRole("button", { name: "Open chat" });
    // ... and it takes the widget's accent colour from the server.
    await expect.poll(() => launcher.evaluate((element) => element.ownerDocument.defaultView!.getComputedStyle(element).backgroundColor)).toBe("rgb(15, 118, 110)");
    const started = performance.now();
    await launcher.click();
    const textbox = chat(page).getByRole("textbox", { name: "Message" });
    await expect.poll(() => textbox.isEnabled()).toBe(true);
    await chat(page).getByText("Hi! Ask me anything about your Kettlebird kettle.").waitFor();
    console.log(`widget: open to usable message box ${(performance.now() - started).toFixed(0)} ms`);
    await chat(page).getByRole("heading", { name: "Kettlebird Help" }).waitFor();
    await chat(page).getByRole("button", { name: "How long is the warranty?" }).waitFor();
    expect(await page.locator('iframe[title="Chat"]').count()).toBe(1);
    // The loader added one element to the host page and set no cookie (on either origin).
    expect(await page.evaluate("[...document.body.children].map((element) => element.tagName + (element.hasAttribute('data-parley-widget') ? '[widget]' : ''))")).toEqual(["MAIN", "SCRIPT", "DIV[widget]"]);
    expect(await fixture.browser.context.cookies()).toEqual([]);
  });

  it("sends a starter question and grows the reply as it streams, with its source and rating buttons below", async () => {
    let start!: () => void;
    const started = new Promise<void>((resolve) => (start = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    fixture.openai.chat.enqueue(streamWith([started, "The kettle comes", " with a", held, " **2-year** limited warranty."]));
    await chat(page).getByRole("button", { name: "How long is the warranty?" }).click();
    const log = chat(page).getByRole("log");
    await log.locator(".msg.visitor").filter({ hasText: "How long is the warranty?" }).waitFor();
    // Before the model's first word, the bot's bubble says a reply is being written.
    const typing = log.locator(".msg.bot.typing");
    await typing.waitFor();
    expect(await typing.locator(".body").textContent()).toBe("Writing a reply…");
    expect(await typing.locator(".dot").count()).toBe(3);
    await screenshot(page, "writing");
    start();
    // Half the reply is on screen while the model still writes, in that same bubble: no rating buttons yet.
    await log.getByText("The kettle comes with a").waitFor();
    expect(await typing.count()).toBe(0);
    expect(await log.locator(".msg.bot").count()).toBe(1);
    expect(await log.getByRole("button", { name: "Helpful" }).count()).toBe(0);
    release();
    await log.getByText("2-year", { exact: true }).waitFor();
    expect(await log.locator("strong").last().textContent()).toBe("2-year");
    const sources = log.getByRole("list", { name: "Sources" });
    await sources.waitFor();
    expect(await sources.textContent()).toMatch(/\.md/);
    await screenshot(page, "desktop");
  });

  it("rates the reply Helpful", async () => {
    const log = chat(page).getByRole("log");
    await log.getByRole("button", { name: "Helpful", exact: true }).click();
    await expect.poll(async () => [await log.getByRole("button", { name: "Helpful", exact: true }).getAttribute("aria-pressed"), await chat(page).locator("#notice").textContent()]).toEqual(["true", ""]);
  });

  it("finds the conversation again after a reload", async () => {
    await page.reload();
    await page.getByRole("button", { name: "Open chat" }).click();
    const log = chat(page).getByRole("log");
    await log.locator(".msg.visitor").filter({ hasText: "How long is the warranty?" }).waitFor();
    await log.getByText("2-year", { exact: true }).waitFor();
    await log.getByRole("list", { name: "Sources" }).waitFor();
  });

  it("shows the rating again after a reload", async () => {
    expect(await chat(page).getByRole("log").getByRole("button", { name: "Helpful", exact: true }).getAttribute("aria-pressed")).toBe("true");
  });

  it("works from the keyboard alone, and runs nothing of a hostile reply", async () => {
    fixture.openai.chat.enqueue(replyWith('Look: <img src=x onerror="window.__pwned=1"> <script>window.__pwned=2</script> [click me](javascript:window.__pwned=3)'));
    const textbox = chat(page).getByRole("textbox", { name: "Message" });
    await tabTo(page, () => textbox.evaluate((element) => element === element.ownerDocument.activeElement));
    const height = () => textbox.evaluate((element) => element.getBoundingClientRect().height);
    const oneLine = await height();
    await page.keyboard.type("Show me something");
    await page.keyboard.down("Shift");
    await page.keyboard.press("Enter");
    await page.keyboard.up("Shift");
    await page.keyboard.type("nasty");
    expect(await textbox.inputValue()).toBe("Show me something\nnasty");
    // The box grows with the lines written, and is one line again once they are sent.
    expect(await height()).toBeGreaterThan(oneLine * 1.4);
    await page.keyboard.press("Enter");
    const log = chat(page).getByRole("log");
    await log.getByText('<img src=x onerror="window.__pwned=1">', { exact: false }).waitFor();
    const frame = await chatFrame(page);
    expect(await frame.evaluate("window.__pwned")).toBeUndefined();
    expect(await page.evaluate("window.__pwned")).toBeUndefined();
    expect(await frame.locator(".log img, .log script, .log a[href^='javascript' i]").count()).toBe(0);
    expect(await log.getByText("click me").count()).toBe(1);
    expect(await textbox.inputValue()).toBe("");
    expect(await height()).toBeCloseTo(oneLine, 0);
  });

  it("shows a reply's Markdown: one numbered list across blank lines, a nested list, and a wide table the keyboard scrolls", async () => {
    const table = "| Model | Capacity | Power | Weight | Colours | Warranty | Descale every |\n|---|---:|---:|---:|---|---|---|\n| K1 Classic | 1.7 L | 2200 W | 1.1 kg | white, black, copper | 2 years | 4 weeks |";
    const command = "curl -s https://kettlebird.example/api/v1/devices/K1-0042/descale --data '{\"mode\":\"vinegar\"}'";
    fixture.openai.chat.enqueue(replyWith(`Steps:\n\n1. Empty it.\n\n2. Fill it.\n   - with vinegar\n   - or citric acid\n\n3. Boil.\n\n${table}\n\n\`\`\`sh\n${command}\n\`\`\`\n\nAll done.`));
    const textbox = chat(page).getByRole("textbox", { name: "Message" });
    await textbox.fill("How do I descale it?");
    await textbox.press("Enter");
    const log = chat(page).getByRole("log");
    await log.getByText("All done.").waitFor();
    const frame = await chatFrame(page);
    // Evaluated as a string, as axe is: this file is typed without the DOM's globals.
    const shape = await frame.evaluate(`(() => {
      const body = [...document.querySelectorAll(".msg.bot .body")].at(-1);
      const region = body.querySelector(".table");
      return {
        lists: [...body.querySelectorAll(":scope > ol")].map((list) => [...list.children].map((item) => item.firstChild?.textContent)),
        nested: [...body.querySelectorAll("ol > li > ul > li")].map((item) => item.textContent),
        bullets: getComputedStyle(body.querySelector("ol > li > ul")).listStyleType,
        headers: [...region.querySelectorAll("th")].map((cell) => cell.textContent),
        wider: region.scrollWidth > region.clientWidth,
        // A long line of code wraps in the bubble rather than scrolling out of it.
        codeScrolls: body.querySelector("pre").scrollWidth > body.querySelector("pre").clientWidth,
      };
    })()`);
    expect(shape).toEqual({ lists: [["Empty it.", "Fill it.", "Boil."]], nested: ["with vinegar", "or citric acid"], bullets: "circle", headers: ["Model", "Capacity", "Power", "Weight", "Colours", "Warranty", "Descale every"], wider: true, codeScrolls: false });
    // The table is wider than the bubble: its region takes the focus and scrolls with the arrow keys.
    const region = log.getByRole("region", { name: "Table" }).last();
    await textbox.focus();
    await tabTo(page, () => region.evaluate((element) => element === element.ownerDocument.activeElement), "Shift+Tab");
    for (let press = 0; press < 3; press += 1) await page.keyboard.press("ArrowRight");
    await expect.poll(() => region.evaluate((element) => element.scrollLeft)).toBeGreaterThan(0);
  });

  it("writes a right-to-left message and reply from right to left, paragraph by paragraph", async () => {
    fixture.openai.chat.enqueue(replyWith("مرحبا! **كيف** يمكنني مساعدتك؟\n\n1. أفرغها.\n2. اغليها.\n\nSee the manual, page 4."));
    const textbox = chat(page).getByRole("textbox", { name: "Message" });
    await textbox.fill("هل الغلاية تعمل؟");
    expect(await textbox.evaluate((element) => element.ownerDocument.defaultView!.getComputedStyle(element).direction)).toBe("rtl");
    await textbox.press("Enter");
    await chat(page).getByRole("log").getByText("See the manual, page 4.").waitFor();
    const directions = await (await chatFrame(page)).evaluate(`(() => {
      const last = (kind) => [...document.querySelectorAll(".msg." + kind + " .body")].at(-1);
      return { visitor: getComputedStyle(last("visitor")).direction, reply: [...last("bot").children].map((block) => block.tagName.toLowerCase() + ":" + getComputedStyle(block).direction) };
    })()`);
    expect(directions).toEqual({ visitor: "rtl", reply: ["p:rtl", "ol:rtl", "p:ltr"] });
  });

  it("stops a pasted text at a message's 32,000 characters (the server's limit) and says so, and sends what the box holds", async () => {
    const textbox = chat(page).getByRole("textbox", { name: "Message" });
    await textbox.focus();
    await page.keyboard.insertText(`${"é".repeat(MAX_MESSAGE_CHARS - 10)} 0123456789 and more`);
    // The frame's box and its sentence say the core's limit, which the frame does not import.
    expect(await textbox.inputValue()).toHaveLength(MAX_MESSAGE_CHARS);
    expect(MAX_MESSAGE_CHARS.toLocaleString("en")).toBe("32,000");
    // Grown to its cap of about five lines, the box scrolls.
    expect(await textbox.evaluate((element) => [element.getBoundingClientRect().height, element.scrollHeight > element.clientHeight])).toEqual([120, true]);
    const notice = chat(page).getByRole("status");
    await expect.poll(() => notice.textContent()).toBe("A message can be at most 32,000 characters long; the rest was not added.");
    fixture.openai.chat.enqueue(replyWith("That is a long message."));
    await textbox.press("Enter");
    await chat(page).getByRole("log").getByText("That is a long message.").waitFor();
    expect(await notice.isHidden()).toBe(true);
    await page.keyboard.insertText("short");
    expect(await notice.isHidden()).toBe(true);
    await textbox.fill("");
  });

  it("has no serious or critical accessibility violation (axe-core)", async () => {
    expect(await axeViolations(await chatFrame(page))).toEqual([]);
  });

  it("shows an agent's takeover and reply live, labelled Agent, and the bot answers again once handed back", async () => {
    const { parley } = fixture;
    const conversations = (await api(parley.url, parley.adminKey, `/v1/admin/conversations?chatbot_id=${parley.chatbotId}`)).json as { data: { id: string }[] };
    const conversation = conversations.data[0]!.id;
    const agentKey = ((await api(parley.url, parley.adminKey, "/v1/admin/keys", { name: "Dana", scope: "agent" })).json as { key: string }).key;
    expect((await api(parley.url, agentKey, `/v1/admin/conversations/${conversation}/takeover`, {})).status).toBe(200);
    const log = chat(page).getByRole("log");
    await log.getByText("An agent has joined the conversation.").waitFor();
    const sent = performance.now();
    const typed = "Hello, this is Dana from Kettlebird. How can I help? *Returns* go through https://kettlebird.example/returns.";
    expect((await api(parley.url, agentKey, `/v1/admin/conversations/${conversation}/messages`, { content: typed })).status).toBe(201);
    const reply = log.locator(".msg.agent").filter({ hasText: "Hello, this is Dana" });
    await reply.waitFor();
    const shownMs = performance.now() - sent;
    console.log(`widget: agent reply shown ${shownMs.toFixed(0)} ms after the operator API stored it`);
    expect(await reply.locator(".who").textContent()).toBe("Agent");
    expect(await reply.textContent()).toContain("Dana");
    // The agent's text as typed (no Markdown: the asterisks stay), its web address a link to a new tab.
    expect(await reply.locator(".body").textContent()).toBe(typed);
    const link = reply.getByRole("link", { name: "https://kettlebird.example/returns" });
    expect(await link.evaluate((a) => [a.getAttribute("href"), a.getAttribute("target"), a.getAttribute("rel")])).toEqual(["https://kettlebird.example/returns", "_blank", "noopener noreferrer"]);
    await screenshot(page, "takeover");

    expect((await api(parley.url, agentKey, `/v1/admin/conversations/${conversation}/takeover`, undefined, "DELETE")).status).toBe(200);
    fixture.openai.chat.enqueue(replyWith("Descaling takes ten minutes with the descaler."));
    await log.getByText("The agent has left the conversation.").waitFor();
    const textbox = chat(page).getByRole("textbox", { name: "Message" });
    await textbox.fill("And descaling?");
    await chat(page).getByRole("button", { name: "Send" }).click();
    await log.getByText("Descaling takes ten minutes with the descaler.").waitFor();
  });

  it("counts on the launcher the replies that came while the chat was closed, until it is opened", async () => {
    const { parley } = fixture;
    const conversations = (await api(parley.url, parley.adminKey, `/v1/admin/conversations?chatbot_id=${parley.chatbotId}`)).json as { data: { id: string }[] };
    const conversation = conversations.data[0]!.id;
    const launcher = page.getByRole("button", { name: "Open chat" });
    const badge = launcher.locator(".badge");
    // The launcher's description: the text of the element its aria-describedby names, in its shadow root.
    const description = () => launcher.evaluate((button) => {
      const id = button.getAttribute("aria-describedby");
      return id === null ? null : (button.getRootNode() as unknown as { getElementById(id: string): { textContent: string | null } | null }).getElementById(id)?.textContent ?? null;
    });
    expect(await badge.isVisible()).toBe(false);
    await chat(page).getByRole("button", { name: "Close chat" }).click();
    await expect.poll(() => page.locator('iframe[title="Chat"]').isVisible()).toBe(false);
    for (const content of ["Are you still there?", "I have sent you the guide by email."]) {
      expect((await api(parley.url, parley.adminKey, `/v1/admin/conversations/${conversation}/messages`, { content })).status).toBe(201);
    }
    await expect.poll(() => badge.textContent()).toBe("2");
    expect(await badge.isVisible()).toBe(true);
    expect(await description()).toBe("2 new messages");
    await screenshot(page, "unread");
    await launcher.click();
    await chat(page).getByRole("log").getByText("I have sent you the guide by email.").waitFor();
    expect(await badge.isVisible()).toBe(false);
    expect(await description()).toBe(null);
  });

  it("closes with Close chat and starts afresh with New conversation", async () => {
    await chat(page).getByRole("button", { name: "New conversation" }).click();
    await chat(page).getByRole("button", { name: "How long is the warranty?" }).waitFor();
    expect(await chat(page).getByRole("log").locator(".msg").count()).toBe(0);
    await chat(page).getByRole("button", { name: "Close chat" }).click();
    await expect.poll(() => page.locator('iframe[title="Chat"]').isVisible()).toBe(false);
    await page.getByRole("button", { name: "Open chat" }).waitFor();
  });

  it("verifies a signed-in visitor's identity given through Parley.identify, in friendly words when it is wrong", async () => {
    const { parley } = fixture;
    const { secret } = (await api(parley.url, parley.adminKey, `/v1/admin/chatbots/${parley.chatbotId}/widget-secret`, {})).json as { secret: string };
    const textbox = chat(page).getByRole("textbox", { name: "Message" });
    await page.evaluate(`window.Parley.open(); window.Parley.identify({ userId: "42", userHash: "${"0".repeat(64)}" })`);
    await textbox.fill("Who am I?");
    await textbox.press("Enter");
    await expect.poll(() => chat(page).locator("#notice").textContent()).toBe("We could not confirm who you are. Please sign in again, then reload the page.");
    expect(await textbox.inputValue()).toBe("Who am I?");

    fixture.openai.chat.enqueue(replyWith("You are user 42."));
    await page.evaluate(`window.Parley.identify({ userId: "42", userHash: "${createHmac("sha256", secret).update("42").digest("hex")}" })`);
    await textbox.fill("Who am I?");
    await textbox.press("Enter");
    await chat(page).getByRole("log").getByText("You are user 42.").waitFor();
    const conversations = (await api(parley.url, parley.adminKey, `/v1/admin/conversations?chatbot_id=${parley.chatbotId}`)).json as { data: { session_id: string }[] };
    expect(conversations.data.map((conversation) => conversation.session_id)).toContain("user-42");
  });

  it("opens at once with data-open, and takes a signed-in visitor from data-user-id and data-user-hash", async () => {
    const { parley } = fixture;
    const { secret } = (await api(parley.url, parley.adminKey, `/v1/admin/chatbots/${parley.chatbotId}/widget-secret`, {})).json as { secret: string };
    fixture.setSnippetAttributes(`data-open="true" data-user-id="7" data-user-hash="${createHmac("sha256", secret).update("7").digest("hex")}"`);
    const visitor = await fixture.browser.newPage();
    try {
      await visitor.goto(`${fixture.site.origin}/`);
      // Nobody clicked the launcher: data-open opened the chat.
      const textbox = chat(visitor).getByRole("textbox", { name: "Message" });
      await textbox.waitFor();
      fixture.openai.chat.enqueue(replyWith("Hello, user 7."));
      await textbox.fill("Who am I?");
      await textbox.press("Enter");
      await chat(visitor).getByRole("log").getByText("Hello, user 7.").waitFor();
      const conversations = (await api(parley.url, parley.adminKey, `/v1/admin/conversations?chatbot_id=${parley.chatbotId}`)).json as { data: { session_id: string }[] };
      expect(conversations.data.map((conversation) => conversation.session_id)).toContain("user-7");
    } finally {
      fixture.setSnippetAttributes();
      await visitor.close();
    }
  });

  it("starts a new session without a word when the stored token is no longer valid", async () => {
    const frame = await chatFrame(page);
    await frame.evaluate(`localStorage.setItem("parley:${fixture.parley.chatbotId}", JSON.stringify({ token: "v1.e30.forged", sessionId: "visitor-forged" }))`);
    await page.reload();
    await page.getByRole("button", { name: "Open chat" }).click();
    await chat(page).getByRole("button", { name: "How long is the warranty?" }).waitFor();
    fixture.openai.chat.enqueue(replyWith("Welcome back."));
    const textbox = chat(page).getByRole("textbox", { name: "Message" });
    await textbox.fill("Hello again");
    await textbox.press("Enter");
    await chat(page).getByRole("log").getByText("Welcome back.").waitFor();
    expect(await chat(page).locator("#notice").isHidden()).toBe(true);
    const stored = JSON.parse(String(await (await chatFrame(page)).evaluate(`localStorage.getItem("parley:${fixture.parley.chatbotId}")`))) as { token: string };
    expect(stored.token).not.toBe("v1.e30.forged");
  });

  it("fills a 375 px phone's screen", async () => {
    const phone = await fixture.browser.newPage();
    await phone.setViewportSize({ width: 375, height: 667 });
    await phone.goto(`${fixture.site.origin}/`);
    await phone.getByRole("button", { name: "Open chat" }).click();
    await chat(phone).getByRole("textbox", { name: "Message" }).waitFor();
    await chat(phone).getByText("Hi! Ask me anything about your Kettlebird kettle.").waitFor();
    expect(await phone.locator('iframe[title="Chat"]').boundingBox()).toEqual({ x: 0, y: 0, width: 375, height: 667 });
    await screenshot(phone, "phone");
    await phone.close();
  });

  it("shows the launcher on the quickstart's demo page in a phone's browser, where a page wider than the screen would push it off", async () => {
    const phone = await fixture.browser.newPage();
    // A phone's browser, as Playwright's isMobile sets it up (the suite's one browser is a persistent desktop context).
    const device = await phone.context().newCDPSession(phone);
    await device.send("Emulation.setDeviceMetricsOverride", { width: 390, height: 844, deviceScaleFactor: 2, mobile: true });
    await device.send("Emulation.setTouchEmulationEnabled", { enabled: true, maxTouchPoints: 5 });
    // Every answer the page got is a success (no 404 for a /favicon.ico it would otherwise ask for).
    const failedLoads: string[] = [];
    phone.on("console", (message) => void (message.text().startsWith("Failed to load resource") && failedLoads.push(message.text())));
    await phone.goto(`${fixture.parley.url}/widget/${fixture.parley.chatbotId}/demo`);
    const launcher = phone.getByRole("button", { name: "Open chat" });
    await launcher.waitFor();
    // A mobile browser lays out a page that overflows at the content's width: the page must fit.
    expect(await phone.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
    const box = (await launcher.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    expect(box.y + box.height).toBeLessThanOrEqual(844);
    await launcher.click();
    await chat(phone).getByRole("textbox", { name: "Message" }).waitFor();
    expect(failedLoads).toEqual([]);
    await phone.close();
  });

  it("gives no usable chat on a site whose origin is not allowed", async () => {
    const other = await fixture.browser.newPage();
    await other.goto(`${fixture.otherSite.origin}/`);
    await other.getByRole("button", { name: "Open chat" }).click();
    const frameElement = other.locator('iframe[title="Chat"]');
    await frameElement.waitFor({ state: "attached" });
    // The browser refuses to show the frame (frame-ancestors): wait for it to settle, then look.
    const frame = await (await frameElement.elementHandle())!.contentFrame();
    await expect.poll(() => frame?.url() ?? "").toMatch(/^chrome-error:/);
    expect(await chat(other).getByRole("textbox", { name: "Message" }).count()).toBe(0);
    // And the public routes refuse the page's origin too.
    const refused = await other.evaluate(`fetch(${JSON.stringify(`${fixture.parley.url}/v1/widget/${fixture.parley.chatbotId}`)}).then((response) => response.status, () => "blocked")`);
    expect(refused).toBe("blocked");
    await other.close();
    // The refusals of this page are what it must get; no other page logged a fault.
    const faults = fixture.browser.problems.filter((problem) => !/frame-ancestors|Access-Control-Allow-Origin|Failed to fetch|ERR_FAILED/.test(problem));
    expect(faults).toEqual([]);
  });

  // After the check of the pages' faults above: a cut connection is one Chromium logs.
  it("keeps a message the server took when the visitor's connection drops mid-reply, and shows the stored reply once connected again", async () => {
    fixture.useRelay();
    const phone = await fixture.browser.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(`${fixture.site.origin}/`);
    await phone.getByRole("button", { name: "Open chat" }).click();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    fixture.openai.chat.enqueue(streamWith(["Descale it", " every month", held, " with citric acid."]));
    const textbox = chat(phone).getByRole("textbox", { name: "Message" });
    await textbox.fill("How often should I descale?");
    await textbox.press("Enter");
    const log = chat(phone).getByRole("log");
    await log.getByText("Descale it every month").waitFor();
    fixture.relay.cut();
    const notice = chat(phone).locator("#notice");
    await expect.poll(() => notice.textContent()).toBe("The connection was lost before the reply arrived. It will appear here when the connection is back; if it does not, please ask again.");
    // The message is stored: it stays, once, and is not put back to be sent twice; the half reply goes.
    expect(await log.locator(".msg.visitor").allTextContents()).toEqual(["YouHow often should I descale?"]);
    expect(await textbox.inputValue()).toBe("");
    expect(await log.locator(".msg.bot").count()).toBe(0);
    // The server finishes and stores the reply meanwhile; connected again, the widget shows it whole.
    release();
    await log.getByText("Descale it every month with citric acid.").waitFor();
    await log.locator(".msg.bot").getByRole("list", { name: "Sources" }).waitFor();
    expect(await notice.isHidden()).toBe(true);
    await phone.reload();
    await phone.getByRole("button", { name: "Open chat" }).click();
    await log.getByText("Descale it every month with citric acid.").waitFor();
    expect(await log.locator(".msg.visitor").count()).toBe(1);
    expect(await log.locator(".msg.bot").count()).toBe(1);
    await phone.close();
  });

  it("lets a visitor scroll up to read while a long reply streams, and follows the conversation again from their next message", async () => {
    const phone = await fixture.browser.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(`${fixture.site.origin}/`);
    await phone.getByRole("button", { name: "Open chat" }).click();
    const steps = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => `\n\nStep ${from + index}: rinse the kettle and boil it once more.`);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    fixture.openai.chat.enqueue(streamWith(["Here is how to descale it.", ...steps(1, 20), held, ...steps(21, 40)]));
    const textbox = chat(phone).getByRole("textbox", { name: "Message" });
    const log = chat(phone).getByRole("log");
    const reply = (opening: string) => log.locator(".msg.bot").filter({ hasText: opening });
    await textbox.fill("How do I descale it, step by step?");
    await textbox.press("Enter");
    await reply("Here is how to descale it.").getByText("Step 20:").waitFor();
    const position = () => log.evaluate((element) => ({ top: element.scrollTop, fromEnd: element.scrollHeight - element.scrollTop - element.clientHeight }));
    // The growing reply kept the log at its end...
    expect((await position()).fromEnd).toBeLessThan(2);
    // ... until the visitor scrolls up with the wheel to read its beginning: the rest streams in below.
    const box = (await phone.locator('iframe[title="Chat"]').boundingBox())!;
    await phone.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await phone.mouse.wheel(0, -400);
    await expect.poll(async () => (await position()).fromEnd).toBeGreaterThan(300);
    const readingAt = (await position()).top;
    release();
    await reply("Here is how to descale it.").getByRole("list", { name: "Sources" }).waitFor();
    expect((await position()).top).toBe(readingAt);
    // The visitor's next message brings the log to its end, and its reply keeps it there.
    fixture.openai.chat.enqueue(streamWith(["Yes, once a month.", ...steps(1, 20)]));
    await textbox.fill("Thanks! Monthly, then?");
    await textbox.press("Enter");
    await reply("Yes, once a month.").getByRole("list", { name: "Sources" }).waitFor();
    expect((await position()).fromEnd).toBeLessThan(2);
    await phone.close();
  });

  it("made no request to any origin but the host site's and the server's", () => {
    const origins = new Set(fixture.browser.requests.filter((url) => /^https?:/.test(url)).map((url) => new URL(url).origin));
    expect([...origins].sort()).toEqual([fixture.parley.url, fixture.relay.url, fixture.site.origin, fixture.otherSite.origin].sort());
  });
});
