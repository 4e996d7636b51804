import { computed, effect, signal } from "@preact/signals";
import { api, unwrap } from "../api/client.js";

// Unread marks come from the server (docs/design.md §16): read state is kept per key, so it
// survives a reload and follows an agent to another browser. Here is only what the server said
// last, plus the visitor messages heard live since, until the server is asked again.

/** Per conversation id: the visitor messages the signed-in key has not read (absent: none). */
export const unreadCounts = signal<Readonly<Record<string, number>>>({});

/** How many conversations have unread visitor messages: the inbox badge and the tab title. */
export const unreadConversations = computed(() => Object.values(unreadCounts.value).filter((count) => count > 0).length);

const TITLE = "Parley console";

/** Keeps the tab title carrying the unread count, e.g. "(2) Parley console"; returns the stop function. */
export function followTitle(): () => void {
  const stop = effect(() => {
    const count = unreadConversations.value;
    document.title = count > 0 ? `(${count}) ${TITLE}` : TITLE;
  });
  return () => {
    stop();
    document.title = TITLE;
  };
}

/** Asks the server which conversations hold unread visitor messages for this key (the 100 most recent). */
export async function loadUnread(): Promise<void> {
  const page = await unwrap(api.GET("/v1/admin/conversations", { params: { query: { unread: "true", limit: 100 } } }));
  unreadCounts.value = Object.fromEntries(page.data.map((conversation) => [conversation.id, conversation.unread_count]));
}

/** Counts one visitor message heard live in a conversation that is not open. */
export function countVisitorMessage(conversationId: string): void {
  unreadCounts.value = { ...unreadCounts.value, [conversationId]: (unreadCounts.value[conversationId] ?? 0) + 1 };
}

/** Marks the conversation read up to its latest message, for this key, on the server and here. */
export async function markReadUpTo(conversationId: string, messageId: string): Promise<void> {
  const { [conversationId]: _dropped, ...rest } = unreadCounts.value;
  unreadCounts.value = rest;
  await unwrap(api.POST("/v1/admin/conversations/{conversation_id}/read", { params: { path: { conversation_id: conversationId } }, body: { up_to: messageId } }));
}
