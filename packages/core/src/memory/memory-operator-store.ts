import type { Chatbot } from "../domain/chatbot.js";
import type { Conversation, Message } from "../domain/conversation.js";
import type { OutboxEvent } from "../domain/events.js";
import type { Ingestion } from "../domain/ingestion.js";
import type { OperatorStorage } from "../ports/storage.js";
import { formatTimestamp } from "../support/time.js";


/** What the operator steps read of the memory storage's state. */
interface MemoryState {
  outbox: readonly OutboxEvent[];
  messages: readonly Message[];
  conversations: ReadonlyMap<string, Conversation>;
  chatbots: ReadonlyMap<string, Chatbot>;
}

/**
 * Outbox feed, usage and ingestions in memory. Positions are 1 + an event's index in the
 * outbox, which only grows. Every method finishes before its first `await`, so each is atomic.
 */
export function createMemoryOperatorStore(state: MemoryState): Omit<OperatorStorage, "getConversation" | "listConversations" | "listMessagesAfter"> {
  const ingestions = new Map<string, Ingestion>();
  const copy = <T>(value: T): T => structuredClone(value);

  return {
    async readOutbox({ afterPosition, limit, userId }) {
      const found = [];
      for (let index = Math.max(0, afterPosition); index < state.outbox.length && found.length < limit; index++) {
        const event = state.outbox[index]!;
        if (userId === undefined || event.userId === userId) found.push({ position: index + 1, event: copy(event) });
      }
      return found;
    },
    async outboxPosition(eventId) {
      const index = state.outbox.findIndex((event) => event.id === eventId);
      return index === -1 ? null : index + 1;
    },
    async latestOutboxPosition() {
      return state.outbox.length;
    },

    async getUsageBreakdown(userId, { from, to }) {
      const byChatbot = new Map<string, number>();
      const byDay = new Map<string, number>();
      for (const message of state.messages) {
        if (message.role !== "user" || message.createdAt < from || message.createdAt >= to) continue;
        const chatbotId = state.conversations.get(message.conversationId)!.chatbotId;
        if (state.chatbots.get(chatbotId)?.ownerId !== userId) continue;
        const date = formatTimestamp(message.createdAt).slice(0, 10);
        byChatbot.set(chatbotId, (byChatbot.get(chatbotId) ?? 0) + 1);
        byDay.set(date, (byDay.get(date) ?? 0) + 1);
      }
      return {
        byChatbot: [...byChatbot].map(([chatbotId, messages]) => ({ chatbotId, messages })).sort((a, b) => b.messages - a.messages || (a.chatbotId < b.chatbotId ? -1 : 1)),
        byDay: [...byDay].map(([date, messages]) => ({ date, messages })).sort((a, b) => (a.date < b.date ? -1 : 1)),
      };
    },

    async createIngestion(ingestion) {
      ingestions.set(ingestion.id, copy(ingestion));
      return copy(ingestion);
    },
    async getIngestion(id) {
      const ingestion = ingestions.get(id);
      return ingestion ? copy(ingestion) : null;
    },
    async claimIngestion({ now, leaseUntil, perUser }) {
      const all = [...ingestions.values()];
      const live = (userId: string) => all.filter((each) => each.userId === userId && each.status === "running" && each.leasedUntil! > now).length;
      // A user never served sorts first (-1), then the one served longest ago.
      const lastStart = (userId: string) => Math.max(-1, ...all.filter((each) => each.userId === userId && each.startedAt !== null).map((each) => each.startedAt!));
      const next = all
        .filter((ingestion) => ingestion.status === "queued" || (ingestion.status === "running" && ingestion.leasedUntil! <= now))
        .filter((ingestion) => live(ingestion.userId) < perUser)
        .sort((a, b) => live(a.userId) - live(b.userId) || lastStart(a.userId) - lastStart(b.userId) || a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1))[0];
      if (!next) return null;
      Object.assign(next, {
        status: "running", startedAt: now, leasedUntil: leaseUntil, documentsTotal: null, documentsDone: 0, chunks: 0, errors: [], attempts: next.attempts + 1,
      });
      return copy(next);
    },
    async updateIngestion(id, update) {
      const ingestion = ingestions.get(id);
      if (!ingestion || ingestion.status !== "running" || ingestion.startedAt !== update.startedAt) return null;
      Object.assign(ingestion, {
        documentsTotal: update.documentsTotal,
        documentsDone: update.documentsDone,
        chunks: update.chunks,
        errors: copy(update.errors),
        leasedUntil: update.finished ? null : update.leaseUntil,
        ...(update.finished ? { status: update.finished.status, finishedAt: update.finished.at } : {}),
      });
      return copy(ingestion);
    },
  };
}
