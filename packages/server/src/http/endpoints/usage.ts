import { defineEndpoint, key, ok, type Tag } from "../endpoint.js";

// The operator API's usage (docs/design.md §9).

const TAG: Tag = { name: "admin: usage", description: "This month's messages against the plan (admin keys)" };

export const getUsage = defineEndpoint({
  method: "GET",
  path: "/v1/admin/usage",
  operationId: "getUsage",
  summary: "This month's usage",
  description: "The plan, its monthly message limit, what is used and left, when it resets (the next UTC month), messages per chatbot and per day of this month, and the ratings of model replies per chatbot (`feedback_by_chatbot`).",
  tag: TAG,
  access: key("admin"),
  success: { status: 200, description: "The usage.", schema: "Usage" },
  handle: async ({ parley, caller }) => ok(await parley.operator.getUsage(caller)),
});
