import type { Caller } from "../domain/user.js";
import type { Dependencies } from "../dependencies.js";
import { chatbotNotFound } from "../errors.js";
import { isUuid } from "../support/ids.js";

/**
 * Who a chatbot's chats run as when no API key is in play: its owner. A visitor's message through
 * the widget is "a chat of the chatbot's owner with that session id" (the owner's quota, limits,
 * takeover and events), so the public routes pass this to `chat`/`chatStream` with the visitor's
 * session. A malformed id and a missing or deleted chatbot are `not_found`.
 */
export async function chatbotOwner(dependencies: Pick<Dependencies, "storage">, chatbotId: string): Promise<Pick<Caller, "user">> {
  if (!isUuid(chatbotId)) throw chatbotNotFound();
  const chatbot = await dependencies.storage.getChatbot(chatbotId.toLowerCase());
  if (!chatbot || chatbot.deletedAt !== null) throw chatbotNotFound();
  const user = await dependencies.storage.getUser(chatbot.ownerId);
  if (!user) throw chatbotNotFound();
  return { user };
}
