import type { Caller } from "../domain/user.js";
import type { Dependencies } from "../dependencies.js";
import { chatbotNotFound } from "../errors.js";
import { findLiveChatbot } from "./owned-chatbot.js";

/**
 * Who a chatbot's chats run as when no API key is in play: its owner. A visitor's message through
 * the widget is "a chat of the chatbot's owner with that session id" (the owner's quota, limits,
 * takeover and events), so the public routes pass this to `chat`/`chatStream` with the visitor's
 * session. A malformed id and a missing or deleted chatbot are `not_found` ({@link findLiveChatbot}).
 */
export async function chatbotOwner(dependencies: Pick<Dependencies, "storage">, chatbotId: string): Promise<Pick<Caller, "user">> {
  const chatbot = await findLiveChatbot(dependencies, chatbotId);
  const user = await dependencies.storage.getUser(chatbot.ownerId);
  if (!user) throw chatbotNotFound();
  return { user };
}
