import { invalidRequest } from "../errors.js";

// A chatbot's chat widget (docs/design.md §14, "Widget settings, secret and feedback"): its
// settings, their defaults and the check of a PATCH part. Off by default: nothing about a
// chatbot is public until its owner turns the widget on.

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

const ORIGIN = /^https?:\/\/(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::[0-9]{1,5})?$/;
const COLOR = /^#[0-9a-fA-F]{6}$/;

/**
 * Whether a string is exactly a web origin as a browser's `Origin` header writes it: `http` or
 * `https`, `://`, a lower-case host (a name or a bracketed IPv6 address), an optional port that is
 * not the scheme's default; no path, query, fragment, user, wildcard or trailing slash.
 */
export function isWebOrigin(value: string): boolean {
  if (value.length > WIDGET_LIMITS.originLength || !ORIGIN.test(value)) return false;
  try {
    return new URL(value).origin === value;
  } catch {
    return false;
  }
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Checks a part of the widget settings (any of its fields) as `PATCH /v1/admin/chatbots/{id}`
 * takes it under `widget`; `invalid_request` names the first bad field, e.g.
 * `widget.allowed_origins.0: must be an origin ...`. Texts are trimmed (the welcome message keeps
 * its inner lines), the colour is lower-cased and repeated origins are kept once.
 */
export function checkWidgetSettingsPart(part: unknown, field = "widget"): Partial<WidgetSettings> {
  if (!isPlainObject(part)) throw invalidRequest(`${field}: must be an object`);
  const checked: Partial<WidgetSettings> = {};
  for (const [name, value] of Object.entries(part)) {
    const path = `${field}.${name}`;
    switch (name) {
      case "enabled":
      case "identity_required":
        if (typeof value !== "boolean") throw invalidRequest(`${path}: must be a boolean`);
        checked[name] = value;
        break;
      case "allowed_origins":
        checked.allowed_origins = checkOrigins(value, path);
        break;
      case "title":
        if (value === null) checked.title = null;
        else checked.title = checkText(value, path, { min: 1, max: WIDGET_LIMITS.title, nullable: true });
        break;
      case "welcome_message":
        checked.welcome_message = checkText(value, path, { min: 0, max: WIDGET_LIMITS.welcomeMessage });
        break;
      case "starter_questions":
        checked.starter_questions = checkQuestions(value, path);
        break;
      case "accent_color":
        if (typeof value !== "string" || !COLOR.test(value)) throw invalidRequest(`${path}: must be a colour written #rrggbb, e.g. #2563eb`);
        checked.accent_color = value.toLowerCase();
        break;
      case "position":
        if (typeof value !== "string" || !(WIDGET_POSITIONS as readonly string[]).includes(value)) throw invalidRequest(`${path}: must be one of ${WIDGET_POSITIONS.join(", ")}`);
        checked.position = value as WidgetSettings["position"];
        break;
      default:
        throw invalidRequest(`${path}: is not a widget setting`);
    }
  }
  return checked;
}

function checkText(value: unknown, path: string, rule: { min: number; max: number; nullable?: boolean }): string {
  if (typeof value !== "string") throw invalidRequest(`${path}: must be a string${rule.nullable ? " or null" : ""}`);
  const text = value.trim();
  if (text.length < rule.min) throw invalidRequest(`${path}: must be a non-empty string`);
  if (text.length > rule.max) throw invalidRequest(`${path}: must be at most ${rule.max} characters`);
  return text;
}

function checkOrigins(value: unknown, path: string): string[] {
  if (!Array.isArray(value)) throw invalidRequest(`${path}: must be an array`);
  if (value.length > WIDGET_LIMITS.allowedOrigins) throw invalidRequest(`${path}: must hold at most ${WIDGET_LIMITS.allowedOrigins} items`);
  const origins: string[] = [];
  value.forEach((origin: unknown, index) => {
    if (typeof origin !== "string") throw invalidRequest(`${path}.${index}: must be a string`);
    if (!isWebOrigin(origin)) {
      throw invalidRequest(`${path}.${index}: must be an origin written scheme://host[:port], such as https://example.com (http or https, lower case, no path, no wildcard, no trailing slash)`);
    }
    if (!origins.includes(origin)) origins.push(origin);
  });
  return origins;
}

function checkQuestions(value: unknown, path: string): string[] {
  if (!Array.isArray(value)) throw invalidRequest(`${path}: must be an array`);
  if (value.length > WIDGET_LIMITS.starterQuestions) throw invalidRequest(`${path}: must hold at most ${WIDGET_LIMITS.starterQuestions} items`);
  return value.map((question: unknown, index) => checkText(question, `${path}.${index}`, { min: 1, max: WIDGET_LIMITS.starterQuestion }));
}
