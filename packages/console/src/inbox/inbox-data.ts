import { signal } from "@preact/signals";
import { api, describeFailure, unwrap } from "../api/client.js";
import { onLiveChange } from "../api/live-events.js";
import type { Conversation } from "../api/types.js";
import { alertVisitorMessage } from "./alerts.js";
import { applyEvent, isVisitorMessage, type InboxFilter } from "./inbox-state.js";
import { countVisitorMessage, loadUnread, markReadUpTo } from "./read-state.js";

/** The inbox's conversations, newest activity first. */
export const conversations = signal<Conversation[]>([]);
export const inboxError = signal<string | null>(null);
export const inboxLoaded = signal(false);
/** The cursor of the next, older page of the inbox; null when the list is complete. */
export const olderCursor = signal<string | null>(null);
export const inboxFilter = signal<InboxFilter>({ chatbotId: "", status: "" });
/** The conversation on screen, which new messages do not mark unread (they are read as they arrive). */
export const openConversationId = signal<string | null>(null);

/** One page of conversations under the filter, newest activity first. */
function listConversations(filter: InboxFilter, cursor?: string) {
  const query = { limit: 50, cursor, ...(filter.chatbotId ? { chatbot_id: filter.chatbotId } : {}), ...(filter.status ? { status: filter.status } : {}) };
  return unwrap(api.GET("/v1/admin/conversations", { params: { query } }));
}

/** Fetches the first page of the inbox under the current filter. */
export async function loadInbox(): Promise<void> {
  const filter = inboxFilter.value;
  try {
    const page = await listConversations(filter);
    if (filter !== inboxFilter.value) return;
    // A refresh replaces the first page and keeps the older pages already shown.
    const first = new Set(page.data.map((conversation) => conversation.id));
    const older = conversations.value.slice(50).filter((conversation) => !first.has(conversation.id));
    conversations.value = [...page.data, ...older];
    if (older.length === 0) olderCursor.value = page.next_cursor;
    inboxError.value = null;
  } catch (error) {
    inboxError.value = describeFailure(error);
  } finally {
    inboxLoaded.value = true;
  }
}

/** Appends the next, older page of conversations. */
export async function loadOlder(): Promise<void> {
  const filter = inboxFilter.value;
  const cursor = olderCursor.value;
  if (!cursor) return;
  try {
    const page = await listConversations(filter, cursor);
    if (filter !== inboxFilter.value) return;
    const shown = new Set(conversations.value.map((conversation) => conversation.id));
    conversations.value = [...conversations.value, ...page.data.filter((conversation) => !shown.has(conversation.id))];
    olderCursor.value = page.next_cursor;
  } catch (error) {
    inboxError.value = describeFailure(error);
  }
}

/** Changes a filter and loads the inbox again. */
export function setInboxFilter(change: Partial<InboxFilter>): void {
  inboxFilter.value = { ...inboxFilter.value, ...change };
  conversations.value = [];
  olderCursor.value = null;
  void loadInbox();
}

let refreshTimer: ReturnType<typeof setTimeout> | undefined;

/** Asks the server again shortly, coalescing bursts of events into one request. */
function refreshSoon(delayMs: number): void {
  if (refreshTimer !== undefined) return;
  refreshTimer = setTimeout(() => {
    refreshTimer = undefined;
    void loadInbox();
    void loadUnread().catch(() => undefined);
  }, delayMs);
}

/**
 * Keeps the inbox live: each event updates the list at once (so a message shows without a round
 * trip), then the list is fetched again to pick up what only the server knows (needs_attention,
 * the status filter); a poll tick just fetches. Returns the unsubscribe function.
 */
export function followInbox(): () => void {
  return onLiveChange((event) => {
    if (!event) return refreshSoon(0);
    const { list, unknown } = applyEvent(conversations.value, event, inboxFilter.value);
    conversations.value = list;
    if (isVisitorMessage(event)) {
      const { conversation_id: id, message_id: messageId, session_id: sessionId, content } = event.data;
      // The open conversation is read as it arrives; any other one is counted, and told of.
      if (id === openConversationId.value && document.visibilityState === "visible") void markReadUpTo(id, messageId).catch(() => undefined);
      else {
        countVisitorMessage(id);
        alertVisitorMessage(id, sessionId, content);
      }
    }
    refreshSoon(unknown ? 0 : 1_000);
  });
}
