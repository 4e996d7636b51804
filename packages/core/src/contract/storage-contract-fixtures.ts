import type { Chatbot } from "../domain/chatbot.js";
import type { OutboxEvent } from "../domain/events.js";
import type { User } from "../domain/user.js";
import type { AcceptedFacts, AcceptUserMessage, AcceptUserMessageResult, Storage } from "../ports/storage.js";
import type { StorageCase } from "./storage-contract-cases.js";
import { conversationStarted, messageReceived } from "../events/outbox-events.js";

/** 2026-11-21T10:00:00Z in microseconds: every fixture time is an offset from it. */
export const START = Date.UTC(2026, 10, 21, 10, 0, 0) * 1000;
export const MONTH = "2026-11";

/** What each contract test gets: a fresh storage and an id source that restarts per test. */
export interface ContractContext {
  storage(): Storage;
  /** A new valid lower-case UUID, counting up, so ids sort in creation order. */
  nextId(): string;
}

/** Registers one case of the suite under its name in `STORAGE_CASES`. */
export type RegisterTest = (name: StorageCase, body: () => Promise<void>) => void;

/** A UUID whose last group is `n`: deterministic and ordered. */
export const uuidOf = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;

/** Creates the `free` plan (if missing) and a user on it. */
export async function seedUser(context: ContractContext, email = `${context.nextId()}@example.com`): Promise<User> {
  await context.storage().ensurePlan({ name: "free", monthlyMessages: 1000 });
  return context.storage().createUser({ id: context.nextId(), email, planName: "free", monthlyMessagesOverride: null, createdAt: START });
}

/** Creates a live, active chatbot for the owner. */
export async function seedChatbot(
  context: ContractContext,
  ownerId: string,
  options: { baseSlug?: string; createdAt?: number; id?: string } = {},
): Promise<Chatbot> {
  return context.storage().createChatbot(
    {
      id: options.id ?? context.nextId(),
      ownerId,
      name: "Support",
      provider: "openai",
      model: "gpt-4o-mini",
      systemPrompt: "You answer questions about Parley.",
      fallbackMessage: "Sorry, I have no answer.",
      isActive: true,
      createdAt: options.createdAt ?? START,
      updatedAt: options.createdAt ?? START,
      deletedAt: null,
    },
    options.baseSlug ?? "support",
  );
}

/** Builds the events the core writes, with the core's own builders: `conversation.started` when new, then `message.received`. */
export function standardEvents(userId: string, eventIds: [string, string]) {
  return ({ conversation, conversationCreated, message }: AcceptedFacts): OutboxEvent[] => [
    ...(conversationCreated ? [conversationStarted(eventIds[0], userId, conversation)] : []),
    messageReceived(eventIds[1], userId, conversation, message),
  ];
}

/** A complete acceptUserMessage input with fresh ids; `overrides` replace any field. */
export function acceptInput(
  context: ContractContext,
  chatbot: Chatbot,
  overrides: Partial<AcceptUserMessage> = {},
): AcceptUserMessage {
  const eventIds: [string, string] = overrides.eventIds ?? [context.nextId(), context.nextId()];
  return {
    userId: chatbot.ownerId,
    month: MONTH,
    monthlyLimit: 1000,
    chatbotId: chatbot.id,
    sessionId: "session-1",
    content: "Hello",
    newConversationId: context.nextId(),
    messageId: context.nextId(),
    eventIds,
    historyLimit: 10,
    events: standardEvents(chatbot.ownerId, eventIds),
    at: START,
    ...overrides,
  };
}

/** A new user owning one new chatbot. */
export async function seedOwnedChatbot(context: ContractContext): Promise<Chatbot> {
  return seedChatbot(context, (await seedUser(context)).id);
}

/** Accepts one message for the chatbot and returns the accepted result. */
export async function acceptMessage(context: ContractContext, chatbot: Chatbot, overrides: Partial<AcceptUserMessage> = {}) {
  return expectAccepted(await context.storage().acceptUserMessage(acceptInput(context, chatbot, overrides)));
}

/** Narrows a result to an accepted one, failing the test with the refusal otherwise. */
export function expectAccepted(result: AcceptUserMessageResult) {
  if (!result.accepted) throw new Error(`Expected the message to be accepted; it was refused at used = ${result.used}.`);
  return result;
}
