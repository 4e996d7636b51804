import { useEffect } from "preact/hooks";
import { liveMode, startLiveEvents } from "./api/live-events.js";
import { ChatbotDetail } from "./chatbots/chatbot-detail.js";
import { Chatbots } from "./chatbots/chatbots.js";
import { loadChatbots } from "./chatbots/chatbots-data.js";
import { ConversationView } from "./conversation/conversation.js";
import { Inbox } from "./inbox/inbox.js";
import { conversations, followInbox, unread } from "./inbox/inbox-data.js";
import { Knowledge } from "./knowledge/knowledge.js";
import { href, route } from "./router.js";
import { adminKey, signOut } from "./session/session.js";
import { Keys } from "./settings/keys.js";
import { UsageScreen } from "./settings/usage.js";
import { Webhooks } from "./settings/webhooks.js";
import { SignIn } from "./sign-in/sign-in.js";

const NAVIGATION = [
  { path: "/inbox", label: "Inbox" },
  { path: "/chatbots", label: "Chatbots" },
  { path: "/keys", label: "API keys" },
  { path: "/webhooks", label: "Webhooks" },
  { path: "/usage", label: "Usage" },
];

const LIVE_LABELS = { off: "Offline", connecting: "Connecting…", live: "Live", polling: "Live updates by polling" } as const;

/** The screen for a client route. */
function Screen({ path }: { path: string }) {
  const parts = path.split("/").filter(Boolean);
  const [first, second, third] = parts;
  if (first === "conversations" && second) return <ConversationView id={second} />;
  if (first === "chatbots" && second && third === "knowledge") return <Knowledge chatbotId={second} />;
  if (first === "chatbots" && second) return <ChatbotDetail id={second} />;
  if (first === "chatbots") return <Chatbots />;
  if (first === "keys") return <Keys />;
  if (first === "webhooks") return <Webhooks />;
  if (first === "usage") return <UsageScreen />;
  return <Inbox />;
}

/** The signed-in console: navigation, live status, and the current screen. */
function Console({ apiKey }: { apiKey: string }) {
  useEffect(() => {
    void loadChatbots().catch(() => undefined);
    const unfollow = followInbox();
    const stop = startLiveEvents(apiKey);
    return () => {
      stop();
      unfollow();
      // The next key may belong to another user: nothing of this one's inbox stays behind.
      conversations.value = [];
      unread.value = new Set();
    };
  }, [apiKey]);
  const path = route.value;
  const unreadCount = unread.value.size;
  return (
    <div class="shell">
      <header class="top">
        <a class="brand" href={href("/inbox")}>
          Parley
        </a>
        <nav aria-label="Console">
          {NAVIGATION.map((item) => (
            <a key={item.path} href={href(item.path)} aria-current={path.startsWith(item.path) ? "page" : undefined}>
              {item.label}
              {item.path === "/inbox" && unreadCount > 0 ? <span class="count" aria-label={`${unreadCount} unread`}>{unreadCount}</span> : null}
            </a>
          ))}
        </nav>
        <span class={`live ${liveMode.value}`} role="status">
          {LIVE_LABELS[liveMode.value]}
        </span>
        <button type="button" class="link" onClick={() => signOut()}>
          Sign out
        </button>
      </header>
      <main>
        <Screen path={path} />
      </main>
    </div>
  );
}

/** The console: sign-in until an admin key is held, then the screens. */
export function App() {
  const key = adminKey.value;
  return key ? <Console key={key} apiKey={key} /> : <SignIn />;
}
