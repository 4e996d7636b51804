import type { Chatbot } from "../domain/chatbot.js";
import type { Caller } from "../domain/user.js";
import type { Dependencies } from "../dependencies.js";
import { pageOfAll, type PageRequest } from "../operator/pages.js";
import { toAdminChatbot } from "./chatbot-views.js";
import { changeChatbot, createChatbot, deleteChatbot, rotateWidgetSecret, type ChatbotSettingsInput } from "./manage-chatbots.js";
import { findOwnedChatbot } from "./owned-chatbot.js";

// The operator API's chatbot operations (docs/design.md §9): the caller's own chatbots, in the admin view.

async function adminView(dependencies: Pick<Dependencies, "searchIndex">, chatbot: Chatbot) {
  return toAdminChatbot(chatbot, await dependencies.searchIndex.documentStats(chatbot.id));
}

/** The caller's chatbots in the admin view, newest first. */
export async function listChatbots(dependencies: Dependencies, caller: Caller, page: PageRequest) {
  const chatbots = await dependencies.storage.listChatbots(caller.user.id);
  const listed = pageOfAll("chatbots", chatbots, page, (chatbot) => chatbot);
  return { data: await Promise.all(listed.data.map((chatbot) => adminView(dependencies, chatbot))), next_cursor: listed.next_cursor };
}

/** Creates a chatbot for the caller. */
export async function createOwnChatbot(dependencies: Dependencies, caller: Caller, input: Omit<Parameters<typeof createChatbot>[1], "userId">) {
  return adminView(dependencies, await createChatbot(dependencies, { ...input, userId: caller.user.id }));
}

/** One of the caller's chatbots in the admin view. */
export async function getChatbot(dependencies: Dependencies, caller: Caller, chatbotId: string) {
  return adminView(dependencies, await findOwnedChatbot(dependencies, caller.user, chatbotId));
}

/** Changes one of the caller's chatbots. */
export async function updateChatbot(dependencies: Dependencies, caller: Caller, chatbotId: string, input: ChatbotSettingsInput) {
  const chatbot = await findOwnedChatbot(dependencies, caller.user, chatbotId);
  return adminView(dependencies, await changeChatbot(dependencies, chatbot.id, input));
}

/** Makes a new identity secret for one of the caller's chatbots' widget (replacing the old one): `{secret}`, shown once. */
export async function createWidgetSecret(dependencies: Dependencies, caller: Caller, chatbotId: string): Promise<{ secret: string }> {
  const chatbot = await findOwnedChatbot(dependencies, caller.user, chatbotId);
  return { secret: (await rotateWidgetSecret(dependencies, chatbot.id)).secret };
}

/** Soft-deletes one of the caller's chatbots. */
export async function removeChatbot(dependencies: Dependencies, caller: Caller, chatbotId: string): Promise<void> {
  const chatbot = await findOwnedChatbot(dependencies, caller.user, chatbotId);
  await deleteChatbot(dependencies, chatbot.id);
}
