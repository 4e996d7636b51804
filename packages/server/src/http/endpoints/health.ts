import { defineEndpoint, ok, type PublicAccess, type Tag } from "../endpoint.js";

// The liveness check: the one public route today.

const OPERATIONS: Tag = { name: "operations", description: "For load balancers and monitors" };

const HEALTHY = ok({ status: "ok" });

export const getHealth = defineEndpoint<"/healthz", undefined, PublicAccess>({
  method: "GET",
  path: "/healthz",
  operationId: "getHealth",
  summary: "Liveness check",
  description: "Answers while the server accepts requests. Needs no key; not rate limited.",
  tag: OPERATIONS,
  access: { kind: "public" },
  success: { status: 200, description: "The server is up.", schema: "Health", examples: { ok: { summary: "Up", value: { status: "ok" } } } },
  handle: async () => HEALTHY,
});
