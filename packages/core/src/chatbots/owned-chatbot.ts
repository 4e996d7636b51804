import type { Chatbot } from "../domain/chatbot.js";
import type { User } from "../domain/user.js";
import type { Dependencies } from "../dependencies.js";
import { chatbotNotFound } from "../errors.js";
import { isUuid } from "../support/ids.js";

/**
 * The user's chatbot with that id. A malformed id, a missing or deleted chatbot and another
 * user's chatbot are all the same `not_found`, so ids of others' chatbots cannot be probed.
 */
export async function findOwnedChatbot(dependencies: Pick<Dependencies, "storage">, user: User, chatbotId: string): Promise<Chatbot> {
  if (!isUuid(chatbotId)) throw chatbotNotFound();
  return ownedChatbot(await dependencies.storage.getChatbot(chatbotId.toLowerCase()), user);
}

/** The chatbot as read if it is the user's and not deleted; `not_found` otherwise (see {@link findOwnedChatbot}). */
export function ownedChatbot(chatbot: Chatbot | null, user: User): Chatbot {
  if (!chatbot || chatbot.deletedAt !== null || chatbot.ownerId !== user.id) throw chatbotNotFound();
  return chatbot;
}

/** A chatbot that exists and is not deleted, whoever owns it (administration is not per user). */
export async function findLiveChatbot(dependencies: Pick<Dependencies, "storage">, chatbotId: string): Promise<Chatbot> {
  const chatbot = isUuid(chatbotId) ? await dependencies.storage.getChatbot(chatbotId.toLowerCase()) : null;
  if (!chatbot || chatbot.deletedAt !== null) throw chatbotNotFound();
  return chatbot;
}
