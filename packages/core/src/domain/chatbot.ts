import type { WidgetSettings } from "./widget.js";

/** The LLM backends a chatbot can name; `ollama` is the locally hosted one. */
export const PROVIDERS = ["openai", "anthropic", "ollama"] as const;

/** One of {@link PROVIDERS}. */
export type Provider = (typeof PROVIDERS)[number];

/** Whether a string names one of the supported providers. */
export function isProvider(value: string): value is Provider {
  return (PROVIDERS as readonly string[]).includes(value);
}

/** A chatbot as stored. Times are integer microseconds since the Unix epoch (UTC). */
export interface Chatbot {
  /** Bare lower-case UUID v4. */
  id: string;
  /** The user that owns the chatbot; only this user can see or chat with it. */
  ownerId: string;
  name: string;
  /** URL-friendly, unique among the owner's chatbots that are not deleted. */
  slug: string;
  provider: Provider;
  /** The model name passed to the provider, e.g. `gpt-4o-mini`. */
  model: string;
  systemPrompt: string;
  /** Sent when the model's reply is blank. */
  fallbackMessage: string;
  /** False while the owner has paused the chatbot. */
  isActive: boolean;
  createdAt: number;
  /** The last change of the chatbot's settings (its creation at first). */
  updatedAt: number;
  /** Set when the chatbot was soft-deleted; such a chatbot is invisible to every API. */
  deletedAt: number | null;
  /** The chat widget's settings (docs/design.md §14); off by default. */
  widget: WidgetSettings;
  /**
   * The random nonce the widget's identity secret is derived from with the server's master key
   * (never the secret itself); null until the owner makes a secret.
   */
  widgetSecretNonce: string | null;
}

/** What `Storage.createChatbot` takes: the widget settings default to off, with no secret. */
export type NewChatbot = Omit<Chatbot, "slug" | "widget" | "widgetSecretNonce"> & Partial<Pick<Chatbot, "widget" | "widgetSecretNonce">>;

/** The list form of the spec: exactly these fields, in this order. */
export interface ChatbotSummary {
  id: string;
  name: string;
  slug: string;
  provider: Provider;
  is_active: boolean;
  created_at: string;
}

/** The detail form of the spec: the list form plus the prompt and the fallback. */
export interface ChatbotDetail extends ChatbotSummary {
  system_prompt: string;
  fallback_message: string;
}
