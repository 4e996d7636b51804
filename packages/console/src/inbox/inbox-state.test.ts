import { describe, expect, it } from "vitest";
import type { Conversation, ParleyEvent } from "../api/types.js";
import { applyEvent, isVisitorMessage } from "./inbox-state.js";

function conversation(id: string, chatbotId = "bot-1"): Conversation {
  return {
    id,
    chatbot_id: chatbotId,
    session_id: `session-${id}`,
    human_takeover: false,
    needs_attention: id === "c2",
    attention_reason: id === "c2" ? "fallback" : null,
    message_count: 2,
    unread_count: 0,
    last_message: { author: "model", agent_name: null, content: "earlier", created_at: "2026-11-01T10:00:00.000000+00:00" },
    events: [],
    created_at: "2026-11-01T09:00:00.000000+00:00",
    updated_at: "2026-11-01T10:00:00.000000+00:00",
  };
}

const all = { chatbotId: "", status: "" } as const;

const AT = "2026-11-02T08:00:00.000000+00:00";

function received(id: string, content: string, chatbotId = "bot-1", sessionId = `session-${id}`): ParleyEvent {
  const data = { message_id: "m1", conversation_id: id, chatbot_id: chatbotId, session_id: sessionId, role: "user", content, human_takeover: false, created_at: AT } as const;
  return { id: "e1", type: "message.received", data };
}

describe("applyEvent", () => {
  const list = [conversation("c1"), conversation("c2"), conversation("c3")];

  it("moves a conversation with a new visitor message to the top with its preview", () => {
    const { list: next, unknown } = applyEvent(list, received("c3", "Is it waterproof?"), all);
    expect(unknown).toBe(false);
    expect(next.map((item) => item.id)).toEqual(["c3", "c1", "c2"]);
    expect(next[0]).toMatchObject({ message_count: 3, updated_at: "2026-11-02T08:00:00.000000+00:00", last_message: { author: "user", content: "Is it waterproof?" } });
  });

  it("cuts the preview to 200 characters and clears needs_attention on an agent's reply", () => {
    const data = { message_id: "m2", conversation_id: "c2", chatbot_id: "bot-1", session_id: "session-c2", role: "assistant", author: "agent", agent_name: "Ana", content: "x".repeat(250), created_at: AT } as const;
    const event: ParleyEvent = { id: "e2", type: "message.sent", data };
    const [top] = applyEvent(list, event, all).list;
    expect(top).toMatchObject({ id: "c2", needs_attention: false, last_message: { author: "agent" } });
    expect(top!.last_message!.content).toHaveLength(200);
  });

  it("flips the takeover flag in place", () => {
    const event: ParleyEvent = { id: "e3", type: "conversation.takeover_started", data: { conversation_id: "c2", chatbot_id: "bot-1", session_id: "session-c2", at: AT } };
    const next = applyEvent(list, event, all).list;
    expect(next.map((item) => [item.id, item.human_takeover])).toEqual([["c1", false], ["c2", true], ["c3", false]]);
  });

  it("puts a new conversation at the top from its event alone, and still asks the server", () => {
    const event = received("c9", "Hello there", "bot-1", "visitor-new");
    const { list: next, unknown } = applyEvent(list, event, all);
    expect(unknown).toBe(true);
    expect(next.map((item) => item.id)).toEqual(["c9", "c1", "c2", "c3"]);
    expect(next[0]).toEqual({
      id: "c9",
      chatbot_id: "bot-1",
      session_id: "visitor-new",
      human_takeover: false,
      needs_attention: false,
      attention_reason: null,
      message_count: 1,
      unread_count: 1,
      last_message: { author: "user", agent_name: null, content: "Hello there", created_at: "2026-11-02T08:00:00.000000+00:00" },
      created_at: "2026-11-02T08:00:00.000000+00:00",
      updated_at: "2026-11-02T08:00:00.000000+00:00",
      events: [],
    });
  });

  it("leaves a new conversation to the server under a filter it may not pass, and ignores other chatbots", () => {
    const event = received("c9", "hi", "bot-1", "visitor-new");
    expect(applyEvent(list, event, { chatbotId: "", status: "attention" })).toEqual({ list, unknown: true });
    const takenOver: ParleyEvent = { id: "e4", type: "conversation.takeover_started", data: { conversation_id: "c9", chatbot_id: "bot-1", session_id: "s", at: AT } };
    expect(applyEvent(list, takenOver, all)).toEqual({ list, unknown: true });
    expect(applyEvent(list, received("c9", "hi", "bot-2"), { chatbotId: "bot-1", status: "" })).toEqual({ list, unknown: false });
  });

  it("marks only visitor messages as unread-making", () => {
    expect(isVisitorMessage(received("c1", "hi"))).toBe(true);
    expect(isVisitorMessage({ id: "e", type: "conversation.takeover_ended", data: { conversation_id: "c1", chatbot_id: "bot-1", session_id: "s", at: AT } })).toBe(false);
  });
});
