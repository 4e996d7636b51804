import { formatTimestamp, toChatbotDetail } from "@parley/core";
import { ensureWebhookMasterKey } from "../runtime/webhook-master-key.js";
import { optional, required, UsageError, wholeNumber, type Command } from "./command.js";

const text = { type: "string" } as const;

/** Plans, users, keys, chatbots, takeover, webhooks and conversations (docs/design.md §6). */
export const ADMIN_COMMANDS: Command[] = [
  {
    name: "plan set",
    usage: "parley plan set NAME --monthly-messages N",
    summary: "Create or update a plan and its monthly message limit.",
    options: { "monthly-messages": text },
    positionals: { min: 1, max: 1 },
    async run(input, { runtime }) {
      const plan = await runtime.parley.admin.setPlan(input.positionals[0]!, wholeNumber(required(input, "monthly-messages"), "monthly-messages"));
      return { name: plan.name, monthly_messages: plan.monthlyMessages };
    },
  },
  {
    name: "user create",
    usage: "parley user create --email E [--plan NAME] [--monthly-messages N]",
    summary: "Create a user (on the free plan unless --plan is given).",
    options: { email: text, plan: text, "monthly-messages": text },
    positionals: { min: 0, max: 0 },
    async run(input, { runtime }) {
      const monthly = optional(input, "monthly-messages");
      const user = await runtime.parley.admin.createUser({
        email: required(input, "email"),
        plan: optional(input, "plan"),
        monthlyMessages: monthly === undefined ? undefined : wholeNumber(monthly, "monthly-messages"),
      });
      return { id: user.id, email: user.email, plan: user.planName };
    },
  },
  {
    name: "user list",
    usage: "parley user list",
    summary: "List every user, oldest first, with how many live keys each has (to find the id for key create).",
    options: {},
    positionals: { min: 0, max: 0 },
    async run(_input, { runtime }) {
      const users = await runtime.parley.admin.listUsers();
      const views = [];
      for (const user of users) {
        const { keys } = await runtime.parley.admin.showUser(user.id);
        views.push({ id: user.id, email: user.email, plan: user.planName, created_at: formatTimestamp(user.createdAt), keys: keys.filter((key) => key.revokedAt === null).length });
      }
      return { users: views };
    },
  },
  {
    name: "user show",
    usage: "parley user show USER_ID|EMAIL",
    summary: "Show a user and their keys (never the secrets), revoked ones too.",
    options: {},
    positionals: { min: 1, max: 1 },
    async run(input, { runtime }) {
      const { user, keys } = await runtime.parley.admin.showUser(input.positionals[0]!);
      return {
        id: user.id,
        email: user.email,
        plan: user.planName,
        monthly_messages_override: user.monthlyMessagesOverride,
        created_at: formatTimestamp(user.createdAt),
        keys: keys.map((key) => ({
          id: key.id,
          name: key.name,
          scope: key.scope,
          created_at: formatTimestamp(key.createdAt),
          last_used_at: key.lastUsedAt === null ? null : formatTimestamp(key.lastUsedAt),
          revoked_at: key.revokedAt === null ? null : formatTimestamp(key.revokedAt),
        })),
      };
    },
  },
  {
    name: "key create",
    usage: "parley key create --user USER_ID [--name N] [--scope chat|admin|agent]",
    summary: "Issue an API key (scope chat by default; admin also opens the operator API; agent only its conversations, signed with --name); the key is printed only this once.",
    options: { user: text, name: text, scope: text },
    positionals: { min: 0, max: 0 },
    async run(input, { runtime }) {
      const { apiKey, key } = await runtime.parley.admin.createApiKey({ userId: required(input, "user"), name: optional(input, "name"), scope: optional(input, "scope") });
      return { id: apiKey.id, key, scope: apiKey.scope };
    },
  },
  {
    name: "key revoke",
    usage: "parley key revoke KEY_ID",
    summary: "Revoke an API key at once.",
    options: {},
    positionals: { min: 1, max: 1 },
    async run(input, { runtime }) {
      const apiKey = await runtime.parley.admin.revokeApiKey(input.positionals[0]!);
      return { id: apiKey.id, revoked: true };
    },
  },
  {
    name: "bot create",
    usage: "parley bot create --user USER_ID --name N --provider openai|anthropic|ollama --model M [--system-prompt S] [--fallback-message F]",
    summary: "Create a chatbot; prints it in detail form.",
    options: { user: text, name: text, provider: text, model: text, "system-prompt": text, "fallback-message": text },
    positionals: { min: 0, max: 0 },
    async run(input, { runtime }) {
      const chatbot = await runtime.parley.admin.createChatbot({
        userId: required(input, "user"),
        name: required(input, "name"),
        provider: required(input, "provider"),
        model: required(input, "model"),
        systemPrompt: optional(input, "system-prompt"),
        fallbackMessage: optional(input, "fallback-message"),
      });
      return toChatbotDetail(chatbot);
    },
  },
  ...(["pause", "resume", "delete"] as const).map(
    (action): Command => ({
      name: `bot ${action}`,
      usage: `parley bot ${action} BOT_ID`,
      summary: { pause: "Pause a chatbot: chat answers 403 until resumed.", resume: "Resume a paused chatbot.", delete: "Soft-delete a chatbot." }[action],
      options: {},
      positionals: { min: 1, max: 1 },
      async run(input, { runtime }) {
        const id = input.positionals[0]!;
        const { admin } = runtime.parley;
        if (action === "delete") return { id: (await admin.deleteChatbot(id)).id, deleted: true };
        return toChatbotDetail(action === "pause" ? await admin.pauseChatbot(id) : await admin.resumeChatbot(id));
      },
    }),
  ),
  ...(["start", "end"] as const).map(
    (action): Command => ({
      name: `takeover ${action}`,
      usage: `parley takeover ${action} --bot BOT_ID --session S`,
      summary: action === "start" ? "Hand a conversation to a human agent (chat stores messages, no replies)." : "Give a conversation back to the chatbot.",
      options: { bot: text, session: text },
      positionals: { min: 0, max: 0 },
      async run(input, { runtime }) {
        const { admin } = runtime.parley;
        const bot = required(input, "bot");
        const session = required(input, "session");
        const { conversation } = action === "start" ? await admin.startTakeover(bot, session) : await admin.endTakeover(bot, session);
        return { conversation_id: conversation.id, human_takeover: conversation.humanTakeover };
      },
    }),
  ),
  {
    name: "takeover reply",
    usage: "parley takeover reply --bot BOT_ID --session S --message TEXT",
    summary: "Store a human agent's reply in a conversation (it becomes part of the history).",
    options: { bot: text, session: text, message: text },
    positionals: { min: 0, max: 0 },
    async run(input, { runtime }) {
      const message = await runtime.parley.admin.replyAsAgent(required(input, "bot"), required(input, "session"), required(input, "message"));
      return { message_id: message.id, conversation_id: message.conversationId };
    },
  },
  {
    name: "webhook add",
    usage: "parley webhook add --user USER_ID --url URL [--bot BOT_ID] [--event TYPE]...",
    summary: "Subscribe a URL to events; the signing secret is printed only this once.",
    options: { user: text, url: text, bot: text, event: { type: "string", multiple: true } },
    positionals: { min: 0, max: 0 },
    async run(input, { runtime, config }) {
      // The first subscription creates the key file its secret is derived from (docs/operations.md).
      ensureWebhookMasterKey(config);
      const subscription = await runtime.parley.admin.createWebhookSubscription({
        userId: required(input, "user"),
        url: required(input, "url"),
        chatbotId: optional(input, "bot"),
        eventTypes: input.values.event as string[] | undefined,
      });
      return { id: subscription.id, secret: subscription.secret };
    },
  },
  {
    name: "conversation show",
    usage: "parley conversation show --bot BOT_ID --session S",
    summary: "Print a conversation with every message.",
    options: { bot: text, session: text },
    positionals: { min: 0, max: 0 },
    async run(input, { runtime }) {
      const { conversation, messages } = await runtime.parley.admin.showConversation(required(input, "bot"), required(input, "session"));
      return {
        conversation_id: conversation.id,
        human_takeover: conversation.humanTakeover,
        messages: messages.map((message) => ({ role: message.role, content: message.content, created_at: formatTimestamp(message.createdAt) })),
      };
    },
  },
];

/** Refuses positionals beyond what a command takes, naming them. */
export function checkPositionals(command: Command, positionals: string[]): void {
  const { min, max } = command.positionals;
  if (positionals.length < min) throw new UsageError(`Missing argument. Usage: ${command.usage}`);
  if (positionals.length > max) throw new UsageError(`Unexpected argument "${positionals[max]}". Usage: ${command.usage}`);
}
