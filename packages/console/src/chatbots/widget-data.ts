import { api, unwrap } from "../api/client.js";
import type { components } from "../api/schema.js";
import type { Chatbot } from "../api/types.js";

/** A chatbot's widget settings as the admin view gives them (docs/design.md §14). */
export type WidgetSettings = Chatbot["widget"];

/** What the Widget section's form changes: every setting but `has_secret`, which only the server knows. */
export type WidgetFields = Omit<WidgetSettings, "has_secret">;

/** Any part of the settings, as `PATCH /v1/admin/chatbots/{id}` takes it (`title: null` goes back to the chatbot's name). */
export type WidgetPart = NonNullable<components["schemas"]["UpdateChatbotRequest"]["widget"]>;

/** The limits of docs/design.md §14, so the form can count against them before the server refuses. */
export const WIDGET_LIMITS = { allowed_origins: 20, title: 80, welcome_message: 500, starter_questions: 4, starter_question: 120 } as const;

/** A setting of the form, as a refusal names it. */
export type WidgetField = keyof WidgetFields;

const FIELDS: readonly WidgetField[] = ["enabled", "allowed_origins", "title", "welcome_message", "starter_questions", "accent_color", "position", "identity_required"];

/**
 * The setting a refusal of the API names (`widget.allowed_origins.1: …`, `widget.title: …`), so
 * its words show next to that field; null for any other error.
 */
export function widgetFieldOfError(error: string | null): WidgetField | null {
  const name = /^widget\.([a-z_]+)/.exec(error ?? "")?.[1];
  return FIELDS.find((field) => field === name) ?? null;
}

/** The item of a list a refusal names (`widget.allowed_origins.1: …` is the second), or null. */
export function widgetItemOfError(error: string | null): number | null {
  const index = /^widget\.[a-z_]+\.(\d+):/.exec(error ?? "")?.[1];
  return index === undefined ? null : Number(index);
}

/** The origins typed one per line (blank lines and surrounding spaces dropped). */
export function originsOf(text: string): string[] {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
}

/** The snippet an owner pastes into their site (docs/design.md §14, the loader). */
export function snippetOf(serverOrigin: string, chatbotId: string): string {
  return `<script src="${serverOrigin}/widget.js" data-chatbot-id="${chatbotId}" async></script>`;
}

const byId = (id: string) => ({ params: { path: { chatbot_id: id } } });

/** Saves widget settings; the answer is the whole chatbot as changed. */
export const updateWidget = (id: string, widget: WidgetPart) => unwrap(api.PATCH("/v1/admin/chatbots/{chatbot_id}", { ...byId(id), body: { widget } }));

/** Makes the identity secret (a new one replaces the old): `{secret}`, shown this once. */
export const makeWidgetSecret = (id: string) => unwrap(api.POST("/v1/admin/chatbots/{chatbot_id}/widget-secret", byId(id)));

/**
 * Whether the server serves the widget's frame page for this chatbot (it answers 404 while the
 * widget is off, and on a server without the widget), so the preview shows a frame only then.
 */
export async function frameServed(chatbotId: string): Promise<boolean> {
  try {
    const response = await fetch(`/widget/${encodeURIComponent(chatbotId)}`, { cache: "no-store", credentials: "omit" });
    return response.ok && (response.headers.get("content-type") ?? "").startsWith("text/html");
  } catch {
    return false;
  }
}
