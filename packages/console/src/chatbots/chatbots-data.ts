import { signal } from "@preact/signals";
import { api, unwrap } from "../api/client.js";
import type { Chatbot, Provider } from "../api/types.js";

/** The signed-in user's chatbots, for names and filters across screens. */
export const chatbots = signal<Chatbot[]>([]);

/** Loads every chatbot (pages of 100) into the shared signal. */
export async function loadChatbots(): Promise<Chatbot[]> {
  const all: Chatbot[] = [];
  let cursor: string | undefined;
  do {
    const page = await unwrap(api.GET("/v1/admin/chatbots", { params: { query: { limit: 100, cursor } } }));
    all.push(...page.data);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  chatbots.value = all;
  return all;
}

/** A chatbot's name, or its id while the list loads. */
export function chatbotName(id: string): string {
  return chatbots.value.find((chatbot) => chatbot.id === id)?.name ?? id.slice(0, 8);
}

/** The fields a form can change. */
export interface ChatbotFields {
  name: string;
  provider: Provider;
  model: string;
  system_prompt: string;
  fallback_message: string;
}

const byId = (id: string) => ({ params: { path: { chatbot_id: id } } });

/** Creates a chatbot; a blank system prompt or fallback message is left to the server's default. */
export function createChatbot(fields: ChatbotFields): Promise<Chatbot> {
  const { system_prompt, fallback_message, ...required } = fields;
  const body = { ...required, ...(system_prompt.trim() ? { system_prompt } : {}), ...(fallback_message.trim() ? { fallback_message } : {}) };
  return unwrap(api.POST("/v1/admin/chatbots", { body }));
}

export const getChatbot = (id: string) => unwrap(api.GET("/v1/admin/chatbots/{chatbot_id}", byId(id)));
export const updateChatbot = (id: string, fields: Partial<ChatbotFields> & { is_active?: boolean }) =>
  unwrap(api.PATCH("/v1/admin/chatbots/{chatbot_id}", { ...byId(id), body: fields }));
export const deleteChatbot = (id: string) => unwrap(api.DELETE("/v1/admin/chatbots/{chatbot_id}", byId(id)));
