import { useEffect } from "preact/hooks";
import { ChatbotSelect } from "../chatbots/chatbot-select.js";
import { chatbotName } from "../chatbots/chatbots-data.js";
import { href } from "../router.js";
import { authorLabel, formatTime } from "../ui/format.js";
import { usePlainText } from "../ui/markdown.js";
import { EmptyState, ErrorText } from "../ui/notice.js";
import type { InboxFilter } from "./inbox-state.js";
import { AlertSwitches } from "./alert-switches.js";
import { conversations, inboxError, inboxFilter, inboxLoaded, loadInbox, loadOlder, olderCursor, setInboxFilter } from "./inbox-data.js";
import { ATTENTION_BADGES, ATTENTION_LABELS } from "./inbox-state.js";
import { unreadCounts } from "./read-state.js";

const STATUS_OPTIONS: { value: InboxFilter["status"]; label: string }[] = [
  { value: "", label: "All conversations" },
  { value: "attention", label: "Needs attention" },
  { value: "human", label: "Taken over" },
  { value: "bot", label: "Answered by the bot" },
];

/** The live inbox: conversations by latest activity, filtered by chatbot and status. */
export function Inbox() {
  useEffect(() => void loadInbox(), []);
  const plainText = usePlainText();
  const filter = inboxFilter.value;
  const list = conversations.value;
  return (
    <section aria-labelledby="inbox-title">
      <header class="screen-header">
        <h1 id="inbox-title">Inbox</h1>
        <div class="filters">
          <ChatbotSelect label="Chatbot" value={filter.chatbotId} onChange={(chatbotId) => setInboxFilter({ chatbotId })} />
          <label>
            Show
            <select value={filter.status} onChange={(event) => setInboxFilter({ status: event.currentTarget.value as InboxFilter["status"] })}>
              {STATUS_OPTIONS.map((option) => (
                <option key={option.value} value={option.value}>
                  {option.label}
                </option>
              ))}
            </select>
          </label>
        </div>
        <AlertSwitches />
      </header>
      <ErrorText error={inboxError.value} />
      {inboxLoaded.value && list.length === 0 && !inboxError.value ? (
        <EmptyState title={filter.chatbotId || filter.status ? "No conversation matches these filters." : "No conversations yet."}>
          {filter.chatbotId || filter.status
            ? "Choose “All chatbots” and “All conversations” to see every conversation."
            : "When a visitor chats with one of your chatbots, the conversation appears here within a second. Send a message to POST /v1/chatbots/{id}/chat to try it."}
        </EmptyState>
      ) : (
        <ul class="inbox" aria-label="Conversations">
          {list.map((conversation) => {
            const unreadCount = unreadCounts.value[conversation.id] ?? 0;
            const isUnread = unreadCount > 0;
            return (
              <li key={conversation.id} class={isUnread ? "unread" : undefined}>
                <a
                  href={href(`/conversations/${conversation.id}`)}
                  aria-label={`Conversation ${conversation.session_id} with ${chatbotName(conversation.chatbot_id)}${isUnread ? `, ${unreadCount} unread` : ""}`}
                >
                  <span class="row-top">
                    {isUnread ? (
                      <span class="unread-count" aria-hidden="true">
                        {unreadCount}
                      </span>
                    ) : null}
                    <strong class="session">{conversation.session_id}</strong>
                    <span class="muted">{chatbotName(conversation.chatbot_id)}</span>
                    {conversation.human_takeover ? <span class="badge human">Taken over</span> : null}
                    {conversation.needs_attention ? (
                      <span class="badge attention" title={conversation.attention_reason ? ATTENTION_LABELS[conversation.attention_reason] : undefined}>
                        Needs attention{conversation.attention_reason ? `: ${ATTENTION_BADGES[conversation.attention_reason]}` : ""}
                      </span>
                    ) : null}
                    <time class="muted" dateTime={conversation.updated_at}>
                      {formatTime(conversation.updated_at)}
                    </time>
                  </span>
                  {conversation.last_message ? (
                    // The words without a reply's Markdown; they take their own direction, so an
                    // Arabic message reads from its start on the right and is cut on the left.
                    <span class="preview">
                      <span class="who">{authorLabel(conversation.last_message.author, conversation.last_message.agent_name)}:</span>{" "}
                      <span class="text" dir="auto">
                        {conversation.last_message.author === "model" ? plainText(conversation.last_message.content) : conversation.last_message.content}
                      </span>
                    </span>
                  ) : (
                    <span class="preview">No message yet</span>
                  )}
                </a>
              </li>
            );
          })}
        </ul>
      )}
      {olderCursor.value ? (
        <p>
          <button type="button" onClick={() => void loadOlder()}>
            Show older conversations
          </button>
        </p>
      ) : null}
    </section>
  );
}
