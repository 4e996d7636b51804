import { isProvider, PROVIDERS, type Chatbot } from "../domain/chatbot.js";
import type { Dependencies } from "../dependencies.js";
import { chatbotNotFound, invalidRequest, notFound } from "../errors.js";
import type { ChatbotChanges } from "../ports/storage.js";
import { slugify } from "../chatbots/slugify.js";
import { checkWidgetSettingsPart } from "../domain/widget.js";
import { newWidgetSecretNonce } from "../widget/widget-secrets.js";
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

/** The settings an owner may change (docs/design.md §9); each one optional. */
export interface ChatbotSettingsInput {
  name?: string;
  provider?: string;
  model?: string;
  systemPrompt?: string;
  fallbackMessage?: string;
  isActive?: boolean;
  /** Any part of the widget settings (docs/design.md §14), checked here; the other settings stay. */
  widget?: unknown;
}

export const DEFAULT_SYSTEM_PROMPT = "You are a helpful assistant. Answer questions clearly and concisely.";
export const DEFAULT_FALLBACK_MESSAGE = "Sorry, I can't answer that right now. Please try again later.";

/** Longest accepted value of each text setting, in characters (docs/api.md, "Chatbots"). */
export const CHATBOT_TEXT_LIMITS = { name: 200, model: 200, systemPrompt: 32_000, fallbackMessage: 4_000 } as const;

const FIELD_NAMES = { name: "name", model: "model", systemPrompt: "system_prompt", fallbackMessage: "fallback_message" } as const;

/** A text setting trimmed and checked: required ones must not be blank, none may be too long. */
function checkedText(field: keyof typeof CHATBOT_TEXT_LIMITS, value: string, required: boolean): string {
  const text = field === "systemPrompt" || field === "fallbackMessage" ? value : value.trim();
  if (required && text.trim() === "") throw invalidRequest(`${FIELD_NAMES[field]}: must be a non-empty string`);
  if (text.length > CHATBOT_TEXT_LIMITS[field]) throw invalidRequest(`${FIELD_NAMES[field]}: must be at most ${CHATBOT_TEXT_LIMITS[field]} characters`);
  return text;
}

/** The changes of a settings input, checked; the system prompt alone may be empty. */
function checkedChanges(input: ChatbotSettingsInput): ChatbotChanges {
  const changes: ChatbotChanges = {};
  if (input.name !== undefined) changes.name = checkedText("name", input.name, true);
  if (input.provider !== undefined) {
    if (!isProvider(input.provider)) throw invalidRequest(`provider: must be one of ${PROVIDERS.join(", ")}`);
    changes.provider = input.provider;
  }
  if (input.model !== undefined) changes.model = checkedText("model", input.model, true);
  if (input.systemPrompt !== undefined) changes.systemPrompt = checkedText("systemPrompt", input.systemPrompt, false);
  if (input.fallbackMessage !== undefined) changes.fallbackMessage = checkedText("fallbackMessage", input.fallbackMessage, true);
  if (input.isActive !== undefined) changes.isActive = input.isActive;
  return changes;
}

/** Creates an active chatbot for a user, with a slug unique among the user's chatbots. */
export async function createChatbot(dependencies: Pick<Dependencies, "storage" | "ids" | "clock">, input: CreateChatbotInput): Promise<Chatbot> {
  const settings = checkedChanges({
    name: input.name,
    provider: input.provider,
    model: input.model,
    systemPrompt: input.systemPrompt ?? DEFAULT_SYSTEM_PROMPT,
    fallbackMessage: input.fallbackMessage ?? DEFAULT_FALLBACK_MESSAGE,
  });
  if (!(await dependencies.storage.getUser(input.userId))) throw notFound(`User ${input.userId}`);
  const now = dependencies.clock.now();
  return dependencies.storage.createChatbot(
    {
      id: dependencies.ids.uuid(),
      ownerId: input.userId,
      name: settings.name!,
      provider: settings.provider!,
      model: settings.model!,
      systemPrompt: settings.systemPrompt!,
      fallbackMessage: settings.fallbackMessage!,
      isActive: true,
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
    },
    slugify(settings.name!),
  );
}

/** A chatbot that exists and is not deleted, whoever owns it (administration is not per user). */
export async function findLiveChatbot(dependencies: Pick<Dependencies, "storage">, chatbotId: string): Promise<Chatbot> {
  const chatbot = isUuid(chatbotId) ? await dependencies.storage.getChatbot(chatbotId.toLowerCase()) : null;
  if (!chatbot || chatbot.deletedAt !== null) throw chatbotNotFound();
  return chatbot;
}

/** Changes a live chatbot's settings (the slug stays as it was made); pausing is `isActive: false`. */
export async function changeChatbot(dependencies: Pick<Dependencies, "storage" | "clock">, chatbotId: string, input: ChatbotSettingsInput): Promise<Chatbot> {
  const chatbot = await findLiveChatbot(dependencies, chatbotId);
  const changes = checkedChanges(input);
  if (input.widget !== undefined) changes.widget = { ...chatbot.widget, ...checkWidgetSettingsPart(input.widget) };
  return (await dependencies.storage.updateChatbot(chatbot.id, { ...changes, updatedAt: dependencies.clock.now() }))!;
}

/**
 * Makes a new identity secret for a live chatbot's widget, replacing the old one: a new random
 * nonce is stored, and the secret derived from it and the master key is returned, never stored.
 */
export async function rotateWidgetSecret(dependencies: Pick<Dependencies, "storage" | "clock" | "widgetSecrets">, chatbotId: string): Promise<{ chatbot: Chatbot; secret: string }> {
  const found = await findLiveChatbot(dependencies, chatbotId);
  const nonce = newWidgetSecretNonce();
  // Derived before the nonce is stored: a server's first secret may create its key file first.
  const secret = dependencies.widgetSecrets.secretFor(found.id, nonce);
  const chatbot = (await dependencies.storage.updateChatbot(found.id, { widgetSecretNonce: nonce, updatedAt: dependencies.clock.now() }))!;
  return { chatbot, secret };
}

/** Pauses (false) or resumes (true) a chatbot. A paused chatbot refuses chat. */
export function setChatbotActive(dependencies: Pick<Dependencies, "storage" | "clock">, chatbotId: string, isActive: boolean): Promise<Chatbot> {
  return changeChatbot(dependencies, chatbotId, { isActive });
}

/** Soft-deletes a chatbot: it disappears from every API; its data stays in storage. */
export async function deleteChatbot(dependencies: Pick<Dependencies, "storage" | "clock">, chatbotId: string): Promise<Chatbot> {
  const chatbot = await findLiveChatbot(dependencies, chatbotId);
  const now = dependencies.clock.now();
  return (await dependencies.storage.updateChatbot(chatbot.id, { deletedAt: now, updatedAt: now }))!;
}
