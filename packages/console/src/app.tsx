import { useEffect } from "preact/hooks";
import { liveMode, startLiveEvents } from "./api/live-events.js";
import { ChatbotDetail } from "./chatbots/chatbot-detail.js";
import { Chatbots } from "./chatbots/chatbots.js";
import { loadChatbots } from "./chatbots/chatbots-data.js";
import { ConversationView } from "./conversation/conversation.js";
import { Inbox } from "./inbox/inbox.js";
import { conversations, followInbox } from "./inbox/inbox-data.js";
import { followTitle, loadUnread, unreadConversations, unreadCounts } from "./inbox/read-state.js";
import { Knowledge } from "./knowledge/knowledge.js";
import { href, route } from "./router.js";
import { adminKey, role, signOut, type Role } from "./session/session.js";
import { Keys } from "./settings/keys.js";
import { UsageScreen } from "./settings/usage.js";
import { Webhooks } from "./settings/webhooks.js";
import { SignIn } from "./sign-in/sign-in.js";

const NAVIGATION: { path: string; label: string; roles: Role[] }[] = [
  { path: "/inbox", label: "Inbox", roles: ["admin", "agent"] },
  { path: "/chatbots", label: "Chatbots", roles: ["admin"] },
  { path: "/keys", label: "API keys", roles: ["admin"] },
  { path: "/webhooks", label: "Webhooks", roles: ["admin"] },
  { path: "/usage", label: "Usage", roles: ["admin"] },
];

const LIVE_LABELS = { off: "Offline", connecting: "Connecting…", live: "Live", polling: "Live updates by polling", reconnecting: "Reconnecting…" } as const;

/**
 * The screen for a client route. An agent's key may only answer conversations (docs/design.md
 * §16): every other screen is the inbox for it, so an agent never meets a control it may not use.
 */
function Screen({ path }: { path: string }) {
  const parts = path.split("/").filter(Boolean);
  const [first, second, third] = parts;
  if (first === "conversations" && second) return <ConversationView id={second} />;
  if (role.value === "agent") return <Inbox />;
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
    void loadUnread().catch(() => undefined);
    const unfollow = followInbox();
    const stopTitle = followTitle();
    const stop = startLiveEvents(apiKey);
    return () => {
      stop();
      stopTitle();
      unfollow();
      // The next key may belong to another user: nothing of this one's inbox stays behind.
      conversations.value = [];
      unreadCounts.value = {};
    };
  }, [apiKey]);
  const path = route.value;
  const unreadCount = unreadConversations.value;
  return (
    <div class="shell">
      <header class="top">
        <a class="brand" href={href("/inbox")}>
          Parley
        </a>
        <nav aria-label="Console">
          {NAVIGATION.filter((item) => item.roles.includes(role.value)).map((item) => (
            <a key={item.path} href={href(item.path)} aria-current={path.startsWith(item.path) ? "page" : undefined}>
              {item.label}
              {item.path === "/inbox" && unreadCount > 0 ? <span class="count" aria-label={`${unreadCount} unread`}>{unreadCount}</span> : null}
            </a>
          ))}
        </nav>
        {role.value === "agent" ? <span class="role">Agent</span> : null}
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

/** The console: sign-in until an admin or agent key is held, then the screens. */
export function App() {
  const key = adminKey.value;
  return key ? <Console key={key} apiKey={key} /> : <SignIn />;
}
