import { nullable, record } from "./views-chat.js";

// The answers of the widget's public routes (docs/design.md §14).

const message = { $ref: "#/components/schemas/Message" };

/** The widget's views, by component name. */
export const widgetViews = {
  WidgetAppearance: record(
    {
      title: { type: "string", description: "The widget's title; the chatbot's name unless its owner set one." },
      welcome_message: { type: "string", description: "Shown first; not stored as a message." },
      starter_questions: { type: "array", items: { type: "string" }, description: "Up to 4 questions shown as buttons that send themselves." },
      accent_color: { type: "string", pattern: "^#[0-9a-fA-F]{6}$" },
      position: { type: "string", enum: ["right", "left"] },
      identity_required: { type: "boolean", description: "Only visitors with a verified identity may start a session." },
      available: { type: "boolean", description: "False while the owner has paused the chatbot." },
    },
    "A chatbot's public widget appearance.",
  ),
  VisitorSession: record(
    {
      session_id: { type: "string", description: "`visitor-` and 22 random URL-safe characters, or `user-<user_id>` for a verified identity." },
      token: { type: "string", description: "Opaque, valid 30 days: `Authorization: Bearer <token>` on every later route." },
    },
    "A new visitor session.",
  ),
  VisitorExchange: record(
    { message, reply: { ...nullable(message), description: "The stored reply with its sources; null while an agent has the conversation." } },
    "The visitor's stored message and the reply.",
  ),
};
