import { invalidRequest } from "../errors.js";

/** The chat request body of the spec. */
export interface ChatInput {
  message: string;
  session_id?: string;
}

/** Longest message, in characters after trimming (docs/design.md §4). */
export const MAX_MESSAGE_CHARS = 32_000;
/** Longest session id, in characters. */
export const MAX_SESSION_ID_CHARS = 255;

const characterCount = (text: string) => {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
};

/**
 * Checks a chat body and returns the trimmed message and the session (the caller's default
 * `api-<userId>` when none is given). Unknown fields are ignored. Throws `invalid_request`
 * naming the field and the problem.
 */
export function parseChatInput(body: unknown, userId: string): { message: string; sessionId: string } {
  const { message, sessionId } = parseChatBody(body);
  return { message, sessionId: sessionId ?? `api-${userId}` };
}

/** {@link parseChatInput} before the caller is known: the session is null when none is given. */
export function parseChatBody(body: unknown): { message: string; sessionId: string | null } {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw invalidRequest("body: must be a JSON object");
  const { message, session_id: sessionId } = body as Record<string, unknown>;
  if (typeof message !== "string" || message.trim() === "") throw invalidRequest("message: must be a non-empty string");
  const trimmed = message.trim();
  if (characterCount(trimmed) > MAX_MESSAGE_CHARS) throw invalidRequest(`message: must be at most ${MAX_MESSAGE_CHARS} characters`);
  if (sessionId === undefined || sessionId === null) return { message: trimmed, sessionId: null };
  if (typeof sessionId !== "string" || sessionId === "") throw invalidRequest("session_id: must be a non-empty string");
  if (characterCount(sessionId) > MAX_SESSION_ID_CHARS) {
    throw invalidRequest(`session_id: must be at most ${MAX_SESSION_ID_CHARS} characters`);
  }
  return { message: trimmed, sessionId };
}
