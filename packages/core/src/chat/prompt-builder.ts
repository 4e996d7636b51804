import type { Chatbot } from "../domain/chatbot.js";
import type { Message } from "../domain/conversation.js";
import type { ChatTurn } from "../ports/chat-model.js";

/** A chunk chosen for the prompt, with the name of the document it came from. */
export interface ContextChunk {
  title: string;
  text: string;
}

/** The prompt a chat model receives. */
export interface Prompt {
  system: string;
  messages: ChatTurn[];
}

/**
 * docs/design.md §4: one system text — the chatbot's system prompt, then the identity rules, then the
 * retrieved context — followed by the history turns, oldest first, and the current message.
 */
export function buildPrompt(input: {
  chatbot: Chatbot;
  identityRules: string;
  context: ContextChunk[];
  history: Message[];
  message: string;
}): Prompt {
  const system = [input.chatbot.systemPrompt.trim(), input.identityRules.trim(), renderContext(input.context)]
    .filter((part) => part !== "")
    .join("\n\n");
  const messages: ChatTurn[] = [
    ...input.history.map((turn) => ({ role: turn.role, content: turn.content })),
    { role: "user", content: input.message },
  ];
  return { system, messages };
}

function renderContext(context: ContextChunk[]): string {
  if (context.length === 0) return "Context: the knowledge base holds nothing that matches this message.";
  const entries = context.map((chunk, index) => `[${index + 1}] ${chunk.title}\n${chunk.text}`);
  return `Context from the knowledge base:\n\n${entries.join("\n\n")}`;
}
