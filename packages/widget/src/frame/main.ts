// The chat frame (docs/design.md §14), served at /widget/{chatbot_id} and shown by the loader in
// an <iframe title="Chat">. Plain DOM, no UI library (the first load stays far under 35 KiB gzip).
// Visitor and document text only ever becomes text nodes; the bot's Markdown goes through the
// renderer of @parley/markdown, which builds elements and never parses HTML, and an agent's reply
// is its text with only its web addresses made links (the same module's renderLinkedText).
import { createApi, readEvents, Refused, type Appearance, type Source, type WidgetMessage } from "./api.js";
import { friendlyRefusal, TEXTS } from "./friendly.js";
import { renderLinkedText, renderMarkdown } from "@parley/markdown";
import "@parley/markdown/markdown.css";
import { createSseParser } from "@parley/sse-parser";
import "./styles.css";

interface Identity {
  userId?: string;
  userHash?: string;
}
interface Stored {
  token: string;
  sessionId: string;
  userId?: string;
}

const chatbotId = decodeURIComponent(location.pathname.split("/")[2] ?? "");
const api = createApi(chatbotId);
const storeKey = `parley:${chatbotId}`;

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const title = $<HTMLHeadingElement>("title");
const log = $<HTMLDivElement>("log");
const welcome = $<HTMLParagraphElement>("welcome");
const starters = $<HTMLDivElement>("starters");
const notice = $<HTMLParagraphElement>("notice");
const form = $<HTMLFormElement>("composer");
const textbox = $<HTMLTextAreaElement>("message");
const sendButton = $<HTMLButtonElement>("send");

let appearance: Appearance | undefined;
let identity: Identity = {};
/** The loader's origin, learned from its first message (the only window allowed to send one). */
let parentOrigin: string | undefined;
let stored: Stored | undefined = readStored();
let blocked = false;
let sending = false;
/** Ids of the messages shown: a reply arrives on its stream and as a live event, shown once. */
const shown = new Set<string>();
let live: AbortController | undefined;
let lastEventId: string | undefined;
/** New content keeps the log at its end, until the visitor scrolls up to read (and again once back at the end). */
let following = true;
/** The scroll position the frame itself last set: its own scroll events are not the visitor's. */
let ownScrollTop = -1;

function readStored(): Stored | undefined {
  try {
    const value = JSON.parse(localStorage.getItem(storeKey) ?? "null") as Stored | null;
    return value && typeof value.token === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}

function store(value: Stored | undefined): void {
  stored = value;
  try {
    if (value) localStorage.setItem(storeKey, JSON.stringify(value));
    else localStorage.removeItem(storeKey);
  } catch {
    // Storage refused (a private window): the conversation lasts as long as the page.
  }
}

function say(text: string): void {
  notice.textContent = text;
  notice.hidden = text === "";
}

function toParent(message: Record<string, unknown>): void {
  if (parentOrigin && window.parent !== window) window.parent.postMessage(message, parentOrigin);
}

// ---- The conversation ----------------------------------------------------------------------

function kindOf(message: WidgetMessage): "visitor" | "bot" | "agent" {
  if (message.role === "user" || message.author === "user") return "visitor";
  if (message.author === "agent" || (message.agent_name !== undefined && message.agent_name !== null)) return "agent";
  return "bot";
}

/** A message's item in the log; `content` is filled by the caller. */
function item(kind: "visitor" | "bot" | "agent" | "system", agentName?: string | null): { root: HTMLDivElement; body: HTMLDivElement } {
  const root = document.createElement("div");
  root.className = `msg ${kind}`;
  const who = document.createElement("span");
  who.className = "who";
  who.textContent = kind === "visitor" ? "You" : kind === "agent" ? "Agent" : kind === "bot" ? (appearance?.title ?? "Assistant") : "";
  const meta = document.createElement("div");
  meta.className = "meta";
  meta.append(who);
  if (kind === "agent" && agentName) {
    const name = document.createElement("span");
    name.className = "agent-name";
    name.textContent = agentName;
    meta.append(name);
  }
  if (kind !== "system") root.append(meta);
  const body = document.createElement("div");
  body.className = kind === "bot" ? "body markdown" : "body";
  // Each message takes its direction from its own text: an Arabic or Hebrew one reads right to left.
  body.dir = "auto";
  root.append(body);
  log.append(root);
  starters.hidden = true;
  return { root, body };
}

/** Keeps the log at its end while it follows, or (`force`, the visitor's own message) from now on. */
function scrollDown(force = false): void {
  if (force) following = true;
  if (!following) return;
  log.scrollTop = log.scrollHeight;
  ownScrollTop = log.scrollTop;
}

/**
 * Fits the message box to its text, up to its CSS max-height (about five lines; past it, it
 * scrolls), so a visitor sees the lines they write. The log above keeps its end in view.
 */
function fitTextbox(): void {
  textbox.style.height = "auto";
  // Not laid out (the frame hidden by a closed widget): its natural height stands until the next input.
  if (textbox.scrollHeight === 0) return;
  textbox.style.height = `${textbox.scrollHeight + textbox.offsetHeight - textbox.clientHeight}px`;
  scrollDown();
}

log.addEventListener("scroll", () => {
  if (log.scrollTop !== ownScrollTop) following = log.scrollHeight - log.scrollTop - log.clientHeight < 32;
});

function showVisitor(content: string, id?: string): HTMLDivElement {
  if (id) shown.add(id);
  const { root, body } = item("visitor");
  body.textContent = content;
  scrollDown(true);
  return root;
}

/**
 * The bot's bubble while the model has not written its first word: three pulsing dots, and
 * "Writing a reply…" for a screen reader. The first delta takes the bubble over (`takeTyping`);
 * a streamed reply without deltas, a handoff or a failure removes it at once (`hideTyping`), and
 * the end of the request removes whatever is left (a JSON answer, a refusal).
 */
let typing: { root: HTMLDivElement; body: HTMLDivElement } | undefined;

function showTyping(): void {
  hideTyping();
  typing = item("bot");
  typing.root.classList.add("typing");
  const label = document.createElement("span");
  label.className = "sr-only";
  label.textContent = TEXTS.writing;
  const dots = Array.from({ length: 3 }, () => {
    const dot = document.createElement("span");
    dot.className = "dot";
    dot.setAttribute("aria-hidden", "true");
    return dot;
  });
  typing.body.append(label, ...dots);
  scrollDown();
}

function takeTyping(): { root: HTMLDivElement; body: HTMLDivElement } | undefined {
  const taken = typing;
  typing = undefined;
  taken?.root.classList.remove("typing");
  taken?.body.replaceChildren();
  return taken;
}

function hideTyping(): void {
  typing?.root.remove();
  typing = undefined;
}

function showSystem(text: string): void {
  const { body } = item("system");
  body.textContent = text;
  scrollDown();
}

/**
 * Shows a stored reply (the model's or an agent's) with its sources and rating buttons, and tells
 * the loader, which counts the replies shown while the chat is closed on its launcher.
 */
function showReply(message: WidgetMessage, into?: { root: HTMLDivElement; body: HTMLDivElement }): void {
  if (shown.has(message.id) && !into) return;
  shown.add(message.id);
  toParent({ type: "parley:reply" });
  if (notice.textContent === TEXTS.interrupted) say("");
  const kind = kindOf(message);
  const target = into ?? item(kind, message.agent_name);
  if (kind === "agent") target.body.replaceChildren(renderLinkedText(message.content, document));
  else target.body.replaceChildren(renderMarkdown(message.content, document));
  if (kind === "bot") {
    if (message.sources && message.sources.length > 0) target.root.append(sourceList(message.sources));
    target.root.append(ratingButtons(message));
  }
  scrollDown();
}

function sourceList(sources: Source[]): HTMLElement {
  const list = document.createElement("ul");
  list.className = "sources";
  list.setAttribute("aria-label", "Sources");
  for (const source of sources) {
    const entry = document.createElement("li");
    if (/^https?:\/\//i.test(source.source)) {
      const link = document.createElement("a");
      link.href = source.source;
      link.target = "_blank";
      link.rel = "noopener noreferrer";
      link.textContent = source.title || source.source;
      entry.append(link);
    } else {
      entry.textContent = source.page ? `${source.source}, page ${source.page}` : source.source;
    }
    list.append(entry);
  }
  return list;
}

function ratingButtons(message: WidgetMessage): HTMLElement {
  const group = document.createElement("div");
  group.className = "rate";
  const buttons = (["up", "down"] as const).map((rating) => {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = rating === "up" ? "Helpful" : "Not helpful";
    button.setAttribute("aria-pressed", String(message.feedback?.rating === rating));
    button.addEventListener("click", () => void rate(rating));
    return button;
  });
  async function rate(rating: "up" | "down"): Promise<void> {
    if (!stored) return;
    try {
      await api.feedback(stored.token, message.id, rating);
      buttons.forEach((button, index) => button.setAttribute("aria-pressed", String((index === 0 ? "up" : "down") === rating)));
      say("");
    } catch (error) {
      say(error instanceof Refused ? friendlyRefusal(error.status, error.detail) : TEXTS.offline);
    }
  }
  group.append(...buttons);
  return group;
}

function clearConversation(): void {
  live?.abort();
  live = undefined;
  lastEventId = undefined;
  shown.clear();
  following = true;
  log.querySelectorAll(".msg").forEach((node) => node.remove());
  starters.hidden = starters.childElementCount === 0;
  say(blocked ? notice.textContent! : "");
}

// ---- Sessions, history and live events -------------------------------------------------------

async function ensureSession(): Promise<Stored> {
  if (stored) return stored;
  const session = await api.createSession(identity);
  store({ token: session.token, sessionId: session.session_id, ...(identity.userId ? { userId: identity.userId } : {}) });
  void listen();
  return stored!;
}

async function loadHistory(): Promise<void> {
  if (!stored) return;
  try {
    const { data } = await api.messages(stored.token);
    for (const message of data) {
      if (shown.has(message.id)) continue;
      if (kindOf(message) === "visitor") showVisitor(message.content, message.id);
      else showReply(message);
    }
    void listen();
  } catch (error) {
    // An expired or foreign token: start afresh, silently, on the next message.
    if (error instanceof Refused && error.status === 401) store(undefined);
    else if (error instanceof Refused) say(friendlyRefusal(error.status, error.detail));
  }
}

/** Follows the session's live events until the conversation is reset, reconnecting with Last-Event-ID. */
async function listen(): Promise<void> {
  if (!stored || live) return;
  const controller = new AbortController();
  live = controller;
  const token = stored.token;
  for (let failures = 0, connections = 0; !controller.signal.aborted; ) {
    try {
      const response = await api.events(token, lastEventId, controller.signal);
      failures = 0;
      // Connected again: what was stored meanwhile (a reply whose own stream was cut) comes with
      // the history, shown once by id; a message being sent brings its own reply.
      if (connections++ > 0 && !sending) void loadHistory();
      const parser = createSseParser();
      await readEvents(response, (event) => {
        if (event.id) lastEventId = event.id;
        onLiveEvent(event.event, event.data);
      }, parser);
    } catch (error) {
      if (controller.signal.aborted) return;
      if (error instanceof Refused && (error.status === 401 || error.status === 403 || error.status === 404)) {
        if (error.status === 401) store(undefined);
        if (live === controller) live = undefined;
        return;
      }
      failures += 1;
    }
    // Reconnect after a pause that grows with each failure in a row (the stream ending is normal).
    await new Promise((resolve) => setTimeout(resolve, Math.min(15_000, 500 * 2 ** failures)));
  }
}

function onLiveEvent(name: string, data: string): void {
  let body: { type?: string; data?: Record<string, unknown> };
  try {
    body = JSON.parse(data) as typeof body;
  } catch {
    return;
  }
  const type = body.type ?? name;
  const payload = body.data ?? {};
  if (type === "message.sent") {
    const message: WidgetMessage = {
      id: String(payload.message_id ?? payload.id ?? ""),
      author: String(payload.author ?? "model"),
      agent_name: (payload.agent_name as string | null | undefined) ?? null,
      content: String(payload.content ?? ""),
    };
    // The model's reply to a message being sent comes on that message's stream, with its sources.
    if (!message.id || shown.has(message.id) || (message.author === "model" && sending)) return;
    if (message.author === "model") void loadHistory();
    else showReply(message);
  } else if (type === "conversation.takeover_started") showSystem("An agent has joined the conversation.");
  else if (type === "conversation.takeover_ended") showSystem("The agent has left the conversation.");
}

// ---- Sending ---------------------------------------------------------------------------------

async function send(text: string): Promise<void> {
  const message = text.trim();
  if (!message || sending || blocked) return;
  sending = true;
  sendButton.disabled = true;
  say("");
  const visitor = showVisitor(message);
  textbox.value = "";
  fitTextbox();
  try {
    await sendOnce(message, visitor, true);
  } catch (error) {
    // Not accepted: the message was not stored, so it goes back into the box to be sent again.
    visitor.remove();
    if (!textbox.value) textbox.value = message;
    fitTextbox();
    say(error instanceof Refused ? friendlyRefusal(error.status, error.detail) : TEXTS.offline);
  } finally {
    sending = false;
    sendButton.disabled = false;
  }
}

async function sendOnce(message: string, visitor: HTMLDivElement, retry: boolean): Promise<void> {
  showTyping();
  try {
    await sendAndRead(message, visitor, retry);
  } finally {
    hideTyping();
  }
}

async function sendAndRead(message: string, visitor: HTMLDivElement, retry: boolean): Promise<void> {
  const session = await ensureSession();
  let response: Response;
  try {
    response = await api.send(session.token, message, new AbortController().signal);
  } catch (error) {
    // The token expired: a new session, silently, and the message once more.
    if (retry && error instanceof Refused && error.status === 401) {
      clearConversation();
      store(undefined);
      log.append(visitor);
      return sendOnce(message, visitor, false);
    }
    throw error;
  }
  if (!(response.headers.get("content-type") ?? "").includes("text/event-stream")) {
    const body = (await response.json()) as { message?: WidgetMessage; reply?: WidgetMessage | null };
    if (body.message?.id) shown.add(body.message.id);
    if (body.reply) showReply(body.reply);
    return;
  }
  let streaming: { root: HTMLDivElement; body: HTMLDivElement } | undefined;
  let text = "";
  let failure: string | undefined;
  /** The server stored the message (its `message` event came): it must never be sent again. */
  let accepted = false;
  let ended = false;
  const reading = readEvents(response, (event) => {
    let data: Record<string, unknown>;
    try {
      data = JSON.parse(event.data) as Record<string, unknown>;
    } catch {
      return;
    }
    if (event.event === "message" && typeof data.id === "string") {
      shown.add(data.id);
      accepted = true;
    } else if (event.event === "delta" && typeof data.text === "string") {
      streaming ??= takeTyping() ?? item("bot");
      streaming.root.setAttribute("aria-busy", "true");
      text += data.text;
      streaming.body.replaceChildren(renderMarkdown(text, document));
      scrollDown();
    } else if (event.event === "reply") {
      const reply = data as unknown as WidgetMessage;
      hideTyping();
      if (streaming) streaming.root.removeAttribute("aria-busy");
      if (shown.has(reply.id)) streaming?.root.remove();
      else showReply(reply, streaming);
      streaming = undefined;
      ended = true;
    } else if (event.event === "handoff") {
      hideTyping();
      ended = true;
    } else if (event.event === "error") {
      hideTyping();
      streaming?.root.remove();
      streaming = undefined;
      failure = typeof data.detail === "string" ? data.detail : "";
      ended = true;
    }
  });
  try {
    await reading;
  } catch (error) {
    if (!accepted) throw error;
  } finally {
    // A reply cut short is not the stored one: it goes, and the stored one comes with the history.
    streaming?.root.remove();
  }
  if (!accepted) throw new Error("The reply's stream ended before the message was stored.");
  if (failure !== undefined) say(/too many|rate/i.test(failure) ? TEXTS.tooFast : TEXTS.failed);
  // The connection went after the message was stored: it stays (sending it again would store it
  // twice), and the server finishes and stores the reply, which the history brings once the
  // session's events are connected again (docs/design.md §14.3).
  else if (!ended) say(TEXTS.interrupted);
}

// ---- Start -----------------------------------------------------------------------------------

function applyAppearance(value: Appearance): void {
  appearance = value;
  title.textContent = value.title;
  document.title = value.title;
  if (/^#[0-9a-f]{6}$/i.test(value.accent_color)) document.documentElement.style.setProperty("--accent", value.accent_color);
  welcome.textContent = value.welcome_message;
  welcome.hidden = value.welcome_message === "";
  starters.replaceChildren(
    ...value.starter_questions.map((question) => {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = question;
      button.addEventListener("click", () => void send(question));
      return button;
    }),
  );
  starters.hidden = value.starter_questions.length === 0 || log.querySelector(".msg") !== null;
  toParent({ type: "parley:appearance", accentColor: value.accent_color, position: value.position });
  if (!value.available) block(TEXTS.unavailable);
  else if (value.identity_required && !identity.userId && !stored) block(TEXTS.signIn);
}

function block(text: string): void {
  blocked = true;
  say(text);
  textbox.disabled = true;
  sendButton.disabled = true;
  starters.querySelectorAll("button").forEach((button) => (button.disabled = true));
}

function unblock(): void {
  if (!appearance?.available) return;
  blocked = false;
  say("");
  textbox.disabled = false;
  sendButton.disabled = false;
  starters.querySelectorAll("button").forEach((button) => (button.disabled = false));
}

function reset(): void {
  clearConversation();
  store(undefined);
  starters.hidden = starters.childElementCount === 0;
  textbox.focus();
}

/** A new identity from the loader: another person's conversation is not this one's. */
function setIdentity(next: Identity): void {
  const changed = (next.userId ?? "") !== (identity.userId ?? "");
  identity = next;
  if (stored && (stored.userId ?? "") !== (identity.userId ?? "")) reset();
  else if (changed && !stored) clearConversation();
  if (appearance?.identity_required) {
    if (identity.userId || stored) unblock();
    else block(TEXTS.signIn);
  }
}

window.addEventListener("message", (event: MessageEvent<{ type?: string; userId?: unknown; userHash?: unknown }>) => {
  // Only the page that embeds the frame may speak to it; its origin is where answers go
  // (and the server's frame-ancestors policy already limits which pages can embed it).
  if (window.parent === window || event.source !== window.parent) return;
  if (parentOrigin !== undefined && event.origin !== parentOrigin) return;
  const data = event.data;
  const next: Identity = {
    ...(typeof data?.userId === "string" ? { userId: data.userId } : {}),
    ...(typeof data?.userHash === "string" ? { userHash: data.userHash } : {}),
  };
  if (data?.type === "parley:init") {
    parentOrigin = event.origin;
    setIdentity(next);
    if (appearance) toParent({ type: "parley:appearance", accentColor: appearance.accent_color, position: appearance.position });
    textbox.focus();
  } else if (data?.type === "parley:identify") setIdentity(next);
  else if (data?.type === "parley:reset") reset();
});

$<HTMLButtonElement>("new").addEventListener("click", reset);
$<HTMLButtonElement>("close").addEventListener("click", () => toParent({ type: "parley:close" }));
form.addEventListener("submit", (event) => {
  event.preventDefault();
  void send(textbox.value);
});
// The box holds at most the 32,000 characters a message may have (counted in UTF-16 units, never
// more than the server's count of characters); a visitor who pastes more is told why it stopped.
textbox.addEventListener("input", () => {
  fitTextbox();
  if (textbox.value.length >= textbox.maxLength) say(TEXTS.tooLong);
  else if (notice.textContent === TEXTS.tooLong) say("");
});
textbox.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    void send(textbox.value);
  }
});

void api
  .appearance()
  .then((value) => {
    applyAppearance(value);
    return loadHistory();
  })
  .catch((error: unknown) => block(error instanceof Refused ? friendlyRefusal(error.status, error.detail) : TEXTS.offline));
