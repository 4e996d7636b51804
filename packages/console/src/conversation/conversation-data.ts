import { get, post, request, adminPath } from "../api/client.js";
import type { ConversationWithMessages, Message } from "../api/types.js";

const path = (id: string) => `/conversations/${encodeURIComponent(id)}`;

/** The conversation with its messages, oldest first; with `after`, only the newer ones. */
export const getConversation = (id: string, after?: string) => get<ConversationWithMessages>(path(id), { after });
/** A human agent takes the conversation over: the chatbot stops answering it. */
export const takeOver = (id: string) => post<ConversationWithMessages>(`${path(id)}/takeover`);
/** Gives the conversation back to the chatbot. */
export const handBack = (id: string) => request<ConversationWithMessages>("DELETE", adminPath(`${path(id)}/takeover`));
/** The agent's reply (the API takes the conversation over first if the chatbot had it). */
export const sendReply = (id: string, content: string) => post<Message>(`${path(id)}/messages`, { content });

/** Messages merged by id, oldest first: a reply can arrive both as its answer and as a live event. */
export function mergeMessages(current: readonly Message[], incoming: readonly Message[]): Message[] {
  const seen = new Set(current.map((message) => message.id));
  const merged = [...current];
  for (const message of incoming) {
    if (seen.has(message.id)) continue;
    seen.add(message.id);
    merged.push(message);
  }
  return merged;
}
