import { API_KEY_SCOPES } from "@parley/core";
import { created, defineEndpoint, key, noContent, ok, type Tag } from "../endpoint.js";
import { missing, PAGE_ERRORS } from "../openapi-components.js";

// The operator API's API keys (docs/design.md §9).

const TAG: Tag = { name: "admin: keys", description: "API keys and their scopes (admin keys)" };

export const listKeys = defineEndpoint({
  method: "GET",
  path: "/v1/admin/keys",
  operationId: "listKeys",
  summary: "List the caller's API keys",
  description: "Every key of the caller's user, revoked ones too, newest first; never a key's secret.",
  tag: TAG,
  access: key("admin"),
  parameters: ["Limit", "Cursor"],
  success: { status: 200, description: "A page of keys.", schema: "KeyPage" },
  invalid: PAGE_ERRORS,
  handle: async ({ parley, caller, query }) => ok(await parley.operator.listKeys(caller, query)),
});

export const createKey = defineEndpoint({
  method: "POST",
  path: "/v1/admin/keys",
  operationId: "createKey",
  summary: "Issue an API key",
  description: "A new key for the caller's user; `key` is in this answer only (the server keeps a hash). Send `{}` for a `chat` key named `default`.",
  tag: TAG,
  access: key("admin"),
  body: {
    name: "CreateKeyRequest",
    schema: {
      type: "object",
      properties: {
        name: { type: "string", maxLength: 200, description: "A label for the key (default `default`)." },
        scope: { type: "string", enum: API_KEY_SCOPES, description: "`chat` (default): the three spec routes; `admin`: the operator API too; `agent`: the conversations of the operator API only (list, read, take over, reply, hand back, read state, live events) and the chatbot list; an agent key needs a name." },
      },
    },
    examples: { example: { summary: "A body", value: { name: "website widget", scope: "chat" } } },
  },
  success: { status: 201, description: "The key, with its secret this once.", schema: "KeyWithSecret" },
  invalid: [
    ["badScope", "A scope other than chat, admin or agent", { refused: { scope: "owner" } }],
    ["longName", "A name over 200 characters", { refused: { name: "n".repeat(201) } }],
  ],
  handle: async ({ parley, caller, body }) => created(await parley.operator.createKey(caller, body)),
});

export const revokeKey = defineEndpoint({
  method: "DELETE",
  path: "/v1/admin/keys/{key_id}",
  operationId: "revokeKey",
  summary: "Revoke an API key",
  description: "The key stops working at once (401), the caller's own included; it stays listed with `revoked_at`.",
  tag: TAG,
  access: key("admin"),
  success: { status: 204, description: "Revoked; no body." },
  notFound: [missing("API key")],
  handle: ({ parley, caller, params }) => parley.operator.revokeKey(caller, params.key_id).then(noContent),
});
