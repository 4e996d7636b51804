import { api, unwrap } from "../api/client.js";
import type { Message } from "../api/types.js";

const byId = (id: string) => ({ path: { conversation_id: id } });

/** The conversation with its messages, oldest first; with `after`, only the newer ones. */
export const getConversation = (id: string, after?: string) =>
  unwrap(api.GET("/v1/admin/conversations/{conversation_id}", { params: { ...byId(id), query: { after } } }));
/** A human agent takes the conversation over: the chatbot stops answering it. */
export const takeOver = (id: string) => unwrap(api.POST("/v1/admin/conversations/{conversation_id}/takeover", { params: byId(id) }));
/** Gives the conversation back to the chatbot. */
export const handBack = (id: string) => unwrap(api.DELETE("/v1/admin/conversations/{conversation_id}/takeover", { params: byId(id) }));
/** The agent's reply (the API takes the conversation over first if the chatbot had it). */
export const sendReply = (id: string, content: string) =>
  unwrap(api.POST("/v1/admin/conversations/{conversation_id}/messages", { params: byId(id), body: { content } }));

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
