import type { Chatbot } from "../domain/chatbot.js";
import type { Dependencies } from "../dependencies.js";
import { chatbotNotFound } from "../errors.js";
import { isUuid } from "../support/ids.js";

/**
 * The chatbot behind a public widget route: live and with its widget on. A malformed id, a
 * missing or deleted chatbot and a widget that is off are all the same `not_found` (docs/design.md
 * §14: the public routes reveal nothing). A paused chatbot is returned (its appearance says
 * `available: false`; a chat refuses it as every chat does).
 */
export async function findWidgetChatbot(dependencies: Pick<Dependencies, "storage">, chatbotId: string): Promise<Chatbot> {
  if (!isUuid(chatbotId)) throw chatbotNotFound();
  const chatbot = await dependencies.storage.getChatbot(chatbotId.toLowerCase());
  if (!chatbot || chatbot.deletedAt !== null || !chatbot.widget.enabled) throw chatbotNotFound();
  return chatbot;
}
