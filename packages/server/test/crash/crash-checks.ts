// What must hold in the database after the kills: every answered message stored (with the reply
// the client got), usage equal to the stored user messages, every event in the outbox and
// delivered, and SQLite's own integrity check.
import BetterSqlite3 from "better-sqlite3";
import type { ChatOutcome } from "./crash-harness.js";

interface MessageRow {
  seq: number;
  role: string;
  content: string;
  conversation: string;
}

/** The broken promises found in the database at `path`, or an empty list. */
export function checkAccounting(path: string, outcomes: ChatOutcome[], deliveredIds: Set<string>): string[] {
  const database = new BetterSqlite3(path, { readonly: true });
  try {
    const problems: string[] = [];
    const integrity = database.pragma("integrity_check", { simple: true });
    if (integrity !== "ok") problems.push(`integrity_check: ${String(integrity)}`);
    const messages = database
      .prepare("SELECT m.seq, m.role, m.content, c.chatbot_id || '/' || c.session_id AS conversation FROM messages m JOIN conversations c ON c.id = m.conversation_id ORDER BY m.seq")
      .all() as MessageRow[];
    const byContent = new Map(messages.filter((row) => row.role === "user").map((row) => [row.content, row]));
    const next = new Map<number, MessageRow>();
    const last = new Map<string, MessageRow>();
    for (const row of messages) {
      const previous = last.get(row.conversation);
      if (previous) next.set(previous.seq, row);
      last.set(row.conversation, row);
    }
    for (const outcome of outcomes) {
      if (outcome.status !== 200 && outcome.status !== 202) continue;
      const stored = byContent.get(outcome.message);
      if (!stored) {
        problems.push(`answered ${outcome.status} but not stored: ${outcome.message}`);
        continue;
      }
      if (stored.conversation !== `${outcome.botId}/${outcome.session}`) problems.push(`stored in another conversation: ${outcome.message}`);
      const reply = next.get(stored.seq);
      if (outcome.status === 200 && (reply?.role !== "assistant" || reply.content !== outcome.response)) problems.push(`answered 200 but its reply is not stored after it: ${outcome.message}`);
    }
    const { used } = database.prepare("SELECT coalesce(sum(used), 0) AS used FROM monthly_usage").get() as { used: number };
    const users = messages.filter((row) => row.role === "user").length;
    if (used !== users) problems.push(`usage ${used} but ${users} user messages stored`);
    const received = database.prepare("SELECT count(*) AS count FROM outbox_events WHERE type = 'message.received'").get() as { count: number };
    if (received.count !== users) problems.push(`${received.count} message.received events for ${users} user messages`);
    const started = database.prepare("SELECT count(*) AS count FROM outbox_events WHERE type = 'conversation.started'").get() as { count: number };
    const conversations = database.prepare("SELECT count(*) AS count FROM conversations").get() as { count: number };
    if (started.count !== conversations.count) problems.push(`${started.count} conversation.started events for ${conversations.count} conversations`);
    const undispatched = database.prepare("SELECT count(*) AS count FROM outbox_events WHERE dispatched_at IS NULL").get() as { count: number };
    if (undispatched.count !== 0) problems.push(`${undispatched.count} events never turned into deliveries`);
    const deliveries = database.prepare("SELECT id, status FROM webhook_deliveries").all() as Array<{ id: string; status: string }>;
    const events = database.prepare("SELECT count(*) AS count FROM outbox_events").get() as { count: number };
    if (deliveries.length !== events.count) problems.push(`${deliveries.length} deliveries for ${events.count} events`);
    const notDelivered = deliveries.filter((delivery) => delivery.status !== "delivered" || !deliveredIds.has(delivery.id));
    if (notDelivered.length > 0) problems.push(`${notDelivered.length} deliveries not delivered (e.g. ${JSON.stringify(notDelivered[0])})`);
    return problems;
  } finally {
    database.close();
  }
}

/** How many deliveries are not yet delivered (read while the server runs; WAL lets both in). */
export function pendingDeliveries(path: string): number {
  const database = new BetterSqlite3(path, { readonly: true });
  try {
    const events = database.prepare("SELECT count(*) AS count FROM outbox_events WHERE dispatched_at IS NULL").get() as { count: number };
    const pending = database.prepare("SELECT count(*) AS count FROM webhook_deliveries WHERE status <> 'delivered'").get() as { count: number };
    return events.count + pending.count;
  } finally {
    database.close();
  }
}
