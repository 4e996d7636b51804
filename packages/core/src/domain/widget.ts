// A chatbot's chat widget (docs/design.md §14, "Widget settings, secret and feedback"): its
// settings and their defaults; the check of a PATCH part is chatbots/widget-settings.ts. Off by
// default: nothing about a chatbot is public until its owner turns the widget on.

/** Where the launcher sits on the host page. */
export const WIDGET_POSITIONS = ["right", "left"] as const;

/** A chatbot's widget settings, as stored and as the admin view shows them (title unresolved here). */
export interface WidgetSettings {
  enabled: boolean;
  /** The web origins (`scheme://host[:port]`) that may embed the widget and call its public routes. */
  allowed_origins: string[];
  /** The frame's title; null shows the chatbot's name. */
  title: string | null;
  /** Shown first in the frame; never stored as a message. May be empty. */
  welcome_message: string;
  /** Buttons that send themselves. */
  starter_questions: string[];
  /** `#rrggbb`, lower case. */
  accent_color: string;
  position: (typeof WIDGET_POSITIONS)[number];
  /** Only visitors with a verified identity (`user_id` + `user_hash`) may chat. */
  identity_required: boolean;
}

/** The settings of a chatbot whose owner never changed them: off, no origin, the chatbot's name. */
export const DEFAULT_WIDGET_SETTINGS: Readonly<WidgetSettings> = Object.freeze({
  enabled: false,
  allowed_origins: [],
  title: null,
  welcome_message: "",
  starter_questions: [],
  accent_color: "#2563eb",
  position: "right",
  identity_required: false,
});

/** The limits of §14's table. */
export const WIDGET_LIMITS = {
  allowedOrigins: 20,
  originLength: 300,
  title: 80,
  welcomeMessage: 500,
  starterQuestions: 4,
  starterQuestion: 120,
} as const;

/** A fresh copy of the default settings (the arrays are not shared). */
export function defaultWidgetSettings(): WidgetSettings {
  return { ...DEFAULT_WIDGET_SETTINGS, allowed_origins: [], starter_questions: [] };
}

/** Stored settings read back: the defaults under whatever was stored, so an older row reads as off. */
export function widgetSettingsFrom(stored: Partial<WidgetSettings> | null | undefined): WidgetSettings {
  const settings = { ...defaultWidgetSettings(), ...(stored ?? {}) };
  return { ...settings, allowed_origins: [...settings.allowed_origins], starter_questions: [...settings.starter_questions] };
}
