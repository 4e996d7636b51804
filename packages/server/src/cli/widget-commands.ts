import { ensureWebhookMasterKey } from "../runtime/webhook-master-key.js";
import { UsageError, type Command, type CommandInput } from "./command.js";

// The chat widget's settings and identity secret from the command line (docs/design.md §6, §14):
// the same checks and texts as `PATCH /v1/admin/chatbots/{id}` with `{"widget": ...}`.

const text = { type: "string" } as const;
const many = { type: "string", multiple: true } as const;
const flag = { type: "boolean" } as const;

/** `true` or `false`, for a boolean setting given as a flag's value. */
function booleanOf(value: string, name: string): boolean {
  if (value === "true") return true;
  if (value === "false") return false;
  throw new UsageError(`--${name} must be true or false (got "${value}").`);
}

/** The widget part a `widget set` asks for, in the API's field names; the core checks it. */
function partOf(input: CommandInput): Record<string, unknown> {
  const { values } = input;
  const part: Record<string, unknown> = {};
  if (values["clear-origins"]) part.allowed_origins = [];
  if (values.origin !== undefined) part.allowed_origins = values.origin;
  if (typeof values.title === "string") part.title = values.title;
  if (values["default-title"]) part.title = null;
  if (typeof values.welcome === "string") part.welcome_message = values.welcome;
  if (values["clear-questions"]) part.starter_questions = [];
  if (values.question !== undefined) part.starter_questions = values.question;
  if (typeof values.color === "string") part.accent_color = values.color;
  if (typeof values.position === "string") part.position = values.position;
  if (typeof values["identity-required"] === "string") part.identity_required = booleanOf(values["identity-required"], "identity-required");
  if (Object.keys(part).length === 0) throw new UsageError("Nothing to set: give at least one option. Run \"parley widget set --help\".");
  return part;
}

/** `parley widget show|on|off|set|secret BOT_ID`. */
export const WIDGET_COMMANDS: Command[] = [
  {
    name: "widget show",
    usage: "parley widget show BOT_ID",
    summary: "Show a chatbot's widget settings as the admin view does (the title resolved, has_secret; never the secret).",
    options: {},
    positionals: { min: 1, max: 1 },
    run: async (input, { runtime }) => runtime.parley.admin.showWidget(input.positionals[0]!),
  },
  {
    name: "widget on",
    usage: "parley widget on BOT_ID",
    summary: "Turn a chatbot's widget on: its public routes answer (for the allowed origins and visitors without an Origin).",
    options: {},
    positionals: { min: 1, max: 1 },
    run: async (input, { runtime }) => runtime.parley.admin.changeWidget(input.positionals[0]!, { enabled: true }),
  },
  {
    name: "widget off",
    usage: "parley widget off BOT_ID",
    summary: "Turn a chatbot's widget off: every public route answers 404 again.",
    options: {},
    positionals: { min: 1, max: 1 },
    run: async (input, { runtime }) => runtime.parley.admin.changeWidget(input.positionals[0]!, { enabled: false }),
  },
  {
    name: "widget set",
    usage:
      "parley widget set BOT_ID [--origin URL]... [--clear-origins] [--title T | --default-title] [--welcome W] [--question Q]... [--clear-questions] [--color #rrggbb] [--position right|left] [--identity-required true|false]",
    summary: "Change widget settings; the ones not given stay. --origin and --question replace their whole list.",
    options: {
      origin: many,
      "clear-origins": flag,
      title: text,
      "default-title": flag,
      welcome: text,
      question: many,
      "clear-questions": flag,
      color: text,
      position: text,
      "identity-required": text,
    },
    positionals: { min: 1, max: 1 },
    run: async (input, { runtime }) => runtime.parley.admin.changeWidget(input.positionals[0]!, partOf(input)),
  },
  {
    name: "widget secret",
    usage: "parley widget secret BOT_ID",
    summary: "Make a new widget identity secret, replacing the old one; it is printed only this once.",
    options: {},
    positionals: { min: 1, max: 1 },
    async run(input, { runtime, config }) {
      // The first secret creates the key file it is derived from, as the first webhook does.
      ensureWebhookMasterKey(config);
      const { secret } = await runtime.parley.admin.createWidgetSecret(input.positionals[0]!);
      return { secret };
    },
  },
];
