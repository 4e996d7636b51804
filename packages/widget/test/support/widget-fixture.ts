import { startFakeOpenAI } from "@parley/providers/testing";
import { mkdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { connect, createServer as createTcpServer, type AddressInfo, type Socket } from "node:net";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { launchBrowser } from "../../../console/test/support/browser.js";
import { startParley } from "../../../console/test/support/start-parley.js";

const SCREENSHOTS = process.env.PARLEY_WIDGET_SCREENSHOTS === "1" ? fileURLToPath(new URL("../../../../docs/widget/", import.meta.url)) : undefined;

/** Saves a screenshot into docs/widget/ when PARLEY_WIDGET_SCREENSHOTS=1 (the command in docs/widget.md). */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (!SCREENSHOTS) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: `${SCREENSHOTS}${name}.png` });
}

/**
 * Evaluated in the host page: resolves, once the launcher is laid out on screen, to the
 * milliseconds since the page's load event (0 when it was there before).
 */
export const LAUNCHER_VISIBLE_AFTER_LOAD = `new Promise((resolve) => {
  const check = () => {
    const button = document.querySelector("[data-parley-widget]")?.shadowRoot?.querySelector("button");
    const navigation = performance.getEntriesByType("navigation")[0];
    if (button && button.getBoundingClientRect().width > 0 && navigation.loadEventStart > 0) resolve(Math.max(0, performance.now() - navigation.loadEventStart));
    else requestAnimationFrame(check);
  };
  check();
})`;

/** A web site on its own 127.0.0.1 port (its own origin) whose page carries the widget's snippet. */
export interface HostSite {
  origin: string;
  close(): Promise<void>;
}

export async function startHostSite(snippet: () => string): Promise<HostSite> {
  const server: Server = createServer((request, response) => {
    if (request.url !== "/") {
      response.writeHead(404).end();
      return;
    }
    // A host page with styles of its own that must not reach the widget.
    response.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
    response.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Kettlebird</title>
<style>body{font:16px Georgia,serif;margin:0;padding:40px;background:#fafaf7} button{background:red!important;font-size:40px!important} iframe{border:10px solid red!important}</style></head>
<body><main><h1>Kettlebird smart kettles</h1><p>Boil water from your phone.</p></main>${snippet()}</body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A TCP relay to `target` (its own origin) whose open connections can be cut at once, as a visitor's network drops. */
export interface Relay {
  url: string;
  /** Destroys every open connection, both ways; new ones are relayed again. */
  cut(): void;
  close(): Promise<void>;
}

export async function startRelay(target: string): Promise<Relay> {
  const { hostname, port } = new URL(target);
  const open = new Set<Socket>();
  const track = (socket: Socket) => {
    open.add(socket);
    socket.on("close", () => open.delete(socket));
    socket.on("error", () => socket.destroy());
  };
  const server = createTcpServer((client) => {
    const upstream = connect(Number(port), hostname);
    track(client);
    track(upstream);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    cut: () => open.forEach((socket) => socket.destroy()),
    close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      open.forEach((socket) => socket.destroy());
      return closed;
    },
  };
}

/** One HTTP call with a bearer key and an optional JSON body. */
export async function api(url: string, key: string, path: string, body?: unknown, method?: string): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${url}${path}`, {
    method: method ?? (body === undefined ? "GET" : "POST"),
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as unknown) : undefined };
}

/**
 * A fake OpenAI, a real `parley serve --quickstart` serving this run's widget build, the demo
 * chatbot's widget turned on for one host site (another site is not allowed), and Chromium.
 */
export async function startWidgetFixture(widgetBuild: string) {
  const openai = await startFakeOpenAI();
  let snippet = "";
  const [site, otherSite] = await Promise.all([startHostSite(() => snippet), startHostSite(() => snippet)]);
  const [parley, browser] = await Promise.all([
    startParley({ OPENAI_API_KEY: "sk-test-secret-1234", OPENAI_BASE_URL: openai.url, PARLEY_LLM_TIMEOUT_MS: "5000", PARLEY_WIDGET_DIR: widgetBuild }),
    launchBrowser(),
  ]);
  const relay = await startRelay(parley.url);
  const snippetFrom = (server: string) => `<script src="${server}/widget.js" data-chatbot-id="${parley.chatbotId}" async></script>`;
  snippet = snippetFrom(parley.url);
  const patched = await api(
    parley.url,
    parley.adminKey,
    `/v1/admin/chatbots/${parley.chatbotId}`,
    {
      widget: {
        enabled: true,
        allowed_origins: [site.origin],
        title: "Kettlebird Help",
        accent_color: "#0f766e",
        welcome_message: "Hi! Ask me anything about your Kettlebird kettle.",
        starter_questions: ["How long is the warranty?", "How do I descale it?"],
      },
    },
    "PATCH",
  );
  if (patched.status !== 200) throw new Error(`Turning the widget on answered ${patched.status}: ${JSON.stringify(patched.json)}`);
  const plainSnippet = snippet;
  return {
    openai,
    parley,
    browser,
    site,
    otherSite,
    relay,
    /** Adds `data-` attributes to the snippet the host sites serve from now on (none: the plain snippet again). */
    setSnippetAttributes(attributes = "") {
      snippet = attributes === "" ? plainSnippet : plainSnippet.replace(" async>", ` ${attributes} async>`);
    },
    /** From now on the host sites' snippet loads the widget through the relay (its frame and routes on the relay's origin). */
    useRelay() {
      snippet = snippetFrom(relay.url);
    },
    async close() {
      await browser.close();
      await relay.close();
      await parley.stop();
      await Promise.all([site.close(), otherSite.close()]);
      await openai.close();
    },
  };
}

export type WidgetFixture = Awaited<ReturnType<typeof startWidgetFixture>>;
