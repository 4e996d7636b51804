import { isProvider, PROVIDERS, type Chatbot } from "../domain/chatbot.js";
import type { Dependencies } from "../dependencies.js";
import { chatbotNotFound, invalidRequest, notFound } from "../errors.js";
import { slugify } from "../chatbots/slugify.js";
import { isUuid } from "../support/ids.js";

/** What a new chatbot needs; the prompt and the fallback have defaults. */
export interface CreateChatbotInput {
  userId: string;
  name: string;
  provider: string;
  model: string;
  systemPrompt?: string;
  fallbackMessage?: string;
}

export const DEFAULT_SYSTEM_PROMPT = "You are a helpful assistant. Answer questions clearly and concisely.";
export const DEFAULT_FALLBACK_MESSAGE = "Sorry, I can't answer that right now. Please try again later.";

/** Creates an active chatbot for a user, with a slug unique among the user's chatbots. */
export async function createChatbot(dependencies: Pick<Dependencies, "storage" | "ids" | "clock">, input: CreateChatbotInput): Promise<Chatbot> {
  const name = input.name.trim();
  if (name === "") throw invalidRequest("name: must be a non-empty string");
  if (!isProvider(input.provider)) throw invalidRequest(`provider: must be one of ${PROVIDERS.join(", ")}`);
  if (input.model.trim() === "") throw invalidRequest("model: must be a non-empty string");
  if (!(await dependencies.storage.getUser(input.userId))) throw notFound(`User ${input.userId}`);
  return dependencies.storage.createChatbot(
    {
      id: dependencies.ids.uuid(),
      ownerId: input.userId,
      name,
      provider: input.provider,
      model: input.model.trim(),
      systemPrompt: input.systemPrompt ?? DEFAULT_SYSTEM_PROMPT,
      fallbackMessage: input.fallbackMessage ?? DEFAULT_FALLBACK_MESSAGE,
      isActive: true,
      createdAt: dependencies.clock.now(),
      deletedAt: null,
    },
    slugify(name),
  );
}

/** A chatbot that exists and is not deleted, whoever owns it (administration is not per user). */
export async function findLiveChatbot(dependencies: Pick<Dependencies, "storage">, chatbotId: string): Promise<Chatbot> {
  const chatbot = isUuid(chatbotId) ? await dependencies.storage.getChatbot(chatbotId.toLowerCase()) : null;
  if (!chatbot || chatbot.deletedAt !== null) throw chatbotNotFound();
  return chatbot;
}

/** Pauses (false) or resumes (true) a chatbot. A paused chatbot refuses chat. */
export async function setChatbotActive(dependencies: Pick<Dependencies, "storage">, chatbotId: string, isActive: boolean): Promise<Chatbot> {
  const chatbot = await findLiveChatbot(dependencies, chatbotId);
  return (await dependencies.storage.updateChatbot(chatbot.id, { isActive }))!;
}

/** Soft-deletes a chatbot: it disappears from every API; its data stays in storage. */
export async function deleteChatbot(dependencies: Pick<Dependencies, "storage" | "clock">, chatbotId: string): Promise<Chatbot> {
  const chatbot = await findLiveChatbot(dependencies, chatbotId);
  return (await dependencies.storage.updateChatbot(chatbot.id, { deletedAt: dependencies.clock.now() }))!;
}
