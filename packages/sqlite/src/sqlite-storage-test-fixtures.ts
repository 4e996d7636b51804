import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach } from "vitest";
import { formatTimestamp, type AcceptUserMessage, type AcceptUserMessageResult, type OutboxEvent, type Storage } from "@parley/core";

// Shared by the SQLite storage tests. File-backed databases in a temporary folder: WAL,
// locking and the busy timeout only exist on a real file.

export const START = Date.UTC(2026, 10, 21, 10, 0, 0) * 1000;

/** A new database file path in this test file's temporary folder, removed after its tests. */
export function temporaryPaths(): () => string {
  const directory = mkdtempSync(join(tmpdir(), "parley-sqlite-storage-"));
  let count = 0;
  afterAll(() => rmSync(directory, { recursive: true, force: true }));
  return () => join(directory, `storage-${++count}.db`);
}

/** Closes what a test opened, newest first, after each test. */
export function closeAfterEach(): <Handle extends { close(): unknown }>(handle: Handle) => Handle {
  const opened: { close(): unknown }[] = [];
  afterEach(async () => {
    for (const handle of opened.splice(0).reverse()) await handle.close();
  });
  return (handle) => {
    opened.push(handle);
    return handle;
  };
}

/** A user with a chatbot, and a function making acceptUserMessage inputs for it. */
export async function seedChatbot(storage: Storage) {
  await storage.ensurePlan({ name: "free", monthlyMessages: 1000 });
  const user = await storage.createUser({
    id: "user-1",
    email: "owner@example.com",
    planName: "free",
    monthlyMessagesOverride: null,
    createdAt: START,
  });
  const chatbot = await storage.createChatbot(
    {
      id: "bot-1",
      ownerId: user.id,
      name: "Support",
      provider: "openai",
      model: "gpt-4o-mini",
      systemPrompt: "",
      fallbackMessage: "Sorry.",
      isActive: true,
      createdAt: START,
      updatedAt: START,
      deletedAt: null,
    },
    "support",
  );
  let count = 0;
  /** A fresh input (ids and time counting up) writing one `message.received` event. */
  const input = (overrides: Partial<AcceptUserMessage> = {}): AcceptUserMessage => {
    count += 1;
    const eventIds: [string, string] = [`event-${count}-a`, `event-${count}-b`];
    return {
      userId: user.id,
      month: "2026-11",
      monthlyLimit: 1000,
      chatbotId: chatbot.id,
      sessionId: "session",
      content: `message ${count}`,
      newConversationId: `conversation-${count}`,
      messageId: `message-${count}`,
      eventIds,
      historyLimit: 10,
      at: START + count,
      events: ({ conversation, message }): OutboxEvent[] => [
        {
          id: eventIds[1],
          type: "message.received",
          userId: user.id,
          chatbotId: chatbot.id,
          createdAt: message.createdAt,
          data: {
            message_id: message.id,
            conversation_id: conversation.id,
            chatbot_id: chatbot.id,
            session_id: conversation.sessionId,
            role: "user",
            content: message.content,
            human_takeover: conversation.humanTakeover,
            created_at: formatTimestamp(message.createdAt),
          },
        },
      ],
      ...overrides,
    };
  };
  return { user, chatbot, input };
}

/** Narrows a result to an accepted one, failing the test otherwise. */
export function accepted(result: AcceptUserMessageResult) {
  if (!result.accepted) throw new Error(`Expected the message to be accepted; it was refused at used = ${result.used}.`);
  return result;
}
