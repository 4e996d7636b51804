// The loader a host page embeds (docs/design.md §14):
//   <script src="https://HOST/widget.js" data-chatbot-id="UUID" async></script>
// It adds one launcher button in an open shadow root (the host's styles cannot reach it) and, when
// opened, one <iframe title="Chat"> of HOST/widget/{chatbot_id}; a closed chat stays loaded, and
// the launcher counts the replies it shows meanwhile. It sets no cookie, touches
// nothing else on the page and asks no other origin for anything: the frame does the talking.
// Built as an IIFE (vite.loader.config.ts), so none of its names reach the host's global scope.

interface Identity {
  userId?: string | undefined;
  userHash?: string | undefined;
}

/** What the frame and the loader say to each other (both check the other's origin). */
type ToFrame = { type: "parley:init"; userId?: string; userHash?: string } | { type: "parley:reset" } | { type: "parley:identify"; userId?: string; userHash?: string };
type FromFrame = { type: "parley:close" } | { type: "parley:reply" } | { type: "parley:appearance"; accentColor?: string; position?: string };

declare global {
  interface Window {
    Parley?: { open(): void; close(): void; reset(): void; identify(identity: Identity): void };
  }
}

function start(script: HTMLScriptElement, chatbotId: string): void {
  const origin = new URL(script.src).origin;
  const frameUrl = `${origin}/widget/${chatbotId}`;
  const identity: Identity = { userId: script.dataset.userId, userHash: script.dataset.userHash };

  const host = document.createElement("div");
  host.setAttribute("data-parley-widget", "");
  const root = host.attachShadow({ mode: "open" });
  // A constructed style sheet: CSSOM, so a host page whose CSP forbids inline styles allows it too.
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(STYLES);
  root.adoptedStyleSheets = [sheet];
  const launcher = document.createElement("button");
  launcher.type = "button";
  launcher.className = "launcher";
  launcher.setAttribute("aria-label", "Open chat");
  launcher.setAttribute("aria-expanded", "false");
  // Replies that came while the chat was closed: a count on the launcher, and its description
  // for a screen reader (the accessible name stays "Open chat").
  const badge = document.createElement("span");
  badge.className = "badge";
  badge.setAttribute("aria-hidden", "true");
  badge.hidden = true;
  const unreadText = document.createElement("span");
  unreadText.id = "unread";
  unreadText.hidden = true;
  launcher.append(icon(), badge);
  root.append(launcher, unreadText);
  let unread = 0;

  function showUnread(count: number): void {
    unread = count;
    badge.hidden = count === 0;
    badge.textContent = count > 9 ? "9+" : String(count);
    unreadText.textContent = count === 1 ? "1 new message" : `${count} new messages`;
    if (count === 0) launcher.removeAttribute("aria-describedby");
    else launcher.setAttribute("aria-describedby", "unread");
  }

  let frame: HTMLIFrameElement | undefined;
  let ready = false;
  const pending: ToFrame[] = [];

  function send(message: ToFrame): void {
    if (frame?.contentWindow && ready) frame.contentWindow.postMessage(message, origin);
    else pending.push(message);
  }

  function open(): void {
    if (!frame) {
      frame = document.createElement("iframe");
      frame.title = "Chat";
      frame.className = "frame";
      frame.src = frameUrl;
      frame.addEventListener("load", () => {
        ready = true;
        frame!.contentWindow!.postMessage({ type: "parley:init", ...clean(identity) } satisfies ToFrame, origin);
        for (const message of pending.splice(0)) frame!.contentWindow!.postMessage(message, origin);
      });
      root.append(frame);
    }
    root.host.setAttribute("data-open", "true");
    frame.hidden = false;
    showUnread(0);
    launcher.setAttribute("aria-expanded", "true");
    frame.focus();
  }

  function close(): void {
    if (!frame || frame.hidden) return;
    frame.hidden = true;
    root.host.removeAttribute("data-open");
    launcher.setAttribute("aria-expanded", "false");
    launcher.focus();
  }

  launcher.addEventListener("click", () => (frame && !frame.hidden ? close() : open()));

  window.addEventListener("message", (event: MessageEvent<FromFrame>) => {
    // Only the frame, from the server's own origin, may speak to the loader.
    if (event.origin !== origin || !frame || event.source !== frame.contentWindow) return;
    const data = event.data;
    if (data?.type === "parley:close") close();
    else if (data?.type === "parley:reply" && frame.hidden) showUnread(unread + 1);
    else if (data?.type === "parley:appearance") appearance(data.accentColor, data.position);
  });

  function appearance(accentColor: unknown, position: unknown): void {
    if (typeof accentColor === "string" && /^#[0-9a-f]{6}$/i.test(accentColor)) launcher.style.background = accentColor;
    root.host.setAttribute("data-position", position === "left" ? "left" : "right");
  }

  // The launcher's colour and side, from the server the script came from (an allowed origin gets
  // the CORS answer; any other page keeps the defaults, and its chat stays refused).
  fetch(`${origin}/v1/widget/${chatbotId}`, { credentials: "omit" })
    .then((response) => (response.ok ? (response.json() as Promise<{ accent_color?: unknown; position?: unknown }>) : null))
    .then((value) => value && appearance(value.accent_color, value.position))
    .catch(() => undefined);

  window.Parley = {
    open,
    close,
    reset: () => send({ type: "parley:reset" }),
    identify(next: Identity) {
      identity.userId = next?.userId;
      identity.userHash = next?.userHash;
      send({ type: "parley:identify", ...clean(identity) });
    },
  };

  document.body.append(host);
  if (script.dataset.open === "true") open();
}

function clean(identity: Identity): { userId?: string; userHash?: string } {
  return {
    ...(typeof identity.userId === "string" && identity.userId ? { userId: identity.userId } : {}),
    ...(typeof identity.userHash === "string" && identity.userHash ? { userHash: identity.userHash } : {}),
  };
}

/** The launcher's speech-bubble icon, built as elements (no HTML parsing on the host page). */
function icon(): SVGElement {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  for (const [name, value] of [["viewBox", "0 0 24 24"], ["width", "28"], ["height", "28"], ["aria-hidden", "true"], ["focusable", "false"]]) svg.setAttribute(name!, value!);
  const path = document.createElementNS(ns, "path");
  path.setAttribute("fill", "currentColor");
  path.setAttribute("d", "M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z");
  svg.append(path);
  return svg;
}

// :host resets inherited styles; the frame fills the viewport under 480 px (100dvh).
const STYLES = `:host{all:initial;position:fixed;z-index:2147483000;bottom:20px;right:20px}
:host([data-position=left]){right:auto;left:20px}
.launcher{all:unset;position:relative;box-sizing:border-box;width:56px;height:56px;border-radius:50%;background:#2563eb;color:#fff;display:grid;place-items:center;cursor:pointer;box-shadow:0 4px 14px rgba(0,0,0,.25)}
.badge{position:absolute;top:-4px;right:-4px;box-sizing:border-box;min-width:22px;height:22px;padding:0 6px;border-radius:11px;border:2px solid #fff;background:#b91c1c;color:#fff;font:700 12px/18px system-ui,sans-serif;text-align:center}
.badge[hidden]{display:none}
.launcher:focus-visible{outline:3px solid #111;outline-offset:3px}
.frame{position:fixed;bottom:88px;right:20px;width:380px;height:min(640px,calc(100vh - 108px));border:0;border-radius:12px;box-shadow:0 8px 30px rgba(0,0,0,.25);background:#fff}
:host([data-position=left]) .frame{right:auto;left:20px}
.frame[hidden]{display:none}
@media (max-width:479.98px){:host([data-open]) .frame{inset:0;width:100vw;height:100vh;height:100dvh;border-radius:0}:host([data-open]) .launcher{display:none}}`;

const script = document.currentScript as HTMLScriptElement | null;
const chatbotId = script?.dataset.chatbotId ?? "";
if (script && /^[0-9a-f-]{36}$/i.test(chatbotId) && !window.Parley) start(script, chatbotId);

export {};
