import { signal } from "@preact/signals";
import { get, patch, post, remove } from "../api/client.js";
import type { Chatbot, List, Provider } from "../api/types.js";

/** The signed-in user's chatbots, for names and filters across screens. */
export const chatbots = signal<Chatbot[]>([]);

/** Loads every chatbot (pages of 100) into the shared signal. */
export async function loadChatbots(): Promise<Chatbot[]> {
  const all: Chatbot[] = [];
  let cursor: string | null = null;
  do {
    const page: List<Chatbot> = await get<List<Chatbot>>("/chatbots", { limit: 100, cursor });
    all.push(...page.data);
    cursor = page.next_cursor;
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

/** Creates a chatbot; a blank system prompt or fallback message is left to the server's default. */
export function createChatbot(fields: ChatbotFields): Promise<Chatbot> {
  const { system_prompt, fallback_message, ...required } = fields;
  return post<Chatbot>("/chatbots", { ...required, ...(system_prompt.trim() ? { system_prompt } : {}), ...(fallback_message.trim() ? { fallback_message } : {}) });
}
export const getChatbot = (id: string) => get<Chatbot>(`/chatbots/${encodeURIComponent(id)}`);
export const updateChatbot = (id: string, fields: Partial<ChatbotFields> & { is_active?: boolean }) => patch<Chatbot>(`/chatbots/${encodeURIComponent(id)}`, fields);
export const deleteChatbot = (id: string) => remove(`/chatbots/${encodeURIComponent(id)}`);
