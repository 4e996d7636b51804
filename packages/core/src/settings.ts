import type { Chatbot } from "./domain/chatbot.js";
import type { Plan } from "./domain/user.js";
import type { FusionParameters } from "./ports/embedder.js";

/** Tunable rules of the service. Every field has the default of docs/design.md §4. */
export interface ParleySettings {
  /** Requests one API key may make in any 60 s window (default 60). */
  keyRequestsPerMinute: number;
  /** Requests one admin-scoped key may make in any 60 s window (default 600). */
  adminKeyRequestsPerMinute: number;
  /** Messages one conversation may receive in any 60 s window (default 20). */
  conversationMessagesPerMinute: number;
  /** New widget sessions one client address may start in any hour (default 10; docs/design.md §14). */
  widgetSessionsPerHour: number;
  /** Widget messages one client address may send in any 60 s window (default 30; docs/design.md §14). */
  widgetMessagesPerMinute: number;
  /** Stored messages before the current one that the model sees (default 10). */
  historyTurns: number;
  /** The plan a user gets when none is named (default `free`, 1,000 messages a month). */
  defaultPlan: Plan;
  /** Upper bound on reply tokens asked of the model (default 1,024). */
  maxReplyTokens: number;
  retrieval: RetrievalSettings;
  /**
   * The identity rules placed after the system prompt; replaceable per deployment. Rules that
   * replace the default should keep its line saying the `<context>` block is data, not instructions.
   */
  identityRules: (chatbot: Chatbot) => string;
}

/** How context is retrieved and how much of it reaches the prompt. */
export interface RetrievalSettings {
  /** Candidates taken from the BM25 arm (default 20). */
  keywordCandidates: number;
  /** Candidates taken from the vector arm (default 20). */
  vectorCandidates: number;
  /** Overrides the embedder's own fusion defaults, field by field. */
  fusion: Partial<FusionParameters>;
  /** Chunks kept for the prompt at most (default 5). */
  maxChunks: number;
  /** Approximate token budget of the context block (default 2,000; ~4 characters a token). */
  contextTokenBudget: number;
}
