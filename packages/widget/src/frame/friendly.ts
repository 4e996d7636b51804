// The visitor never sees a status code (docs/design.md §14): each refusal of the public routes
// becomes one plain sentence.

export const TEXTS = {
  tooFast: "You are sending messages too quickly. Please wait a moment and try again.",
  unavailable: "This chat is unavailable right now. Please try again later.",
  identity: "We could not confirm who you are. Please sign in again, then reload the page.",
  notHere: "This chat is not available on this website.",
  missing: "This chat is not available.",
  offline: "The connection was lost. Please check your connection and try again.",
  interrupted: "The connection was lost before the reply arrived. It will appear here when the connection is back; if it does not, please ask again.",
  failed: "Sorry, something went wrong. Please try again.",
  signIn: "Please sign in to chat with us.",
  tooLong: "A message can be at most 32,000 characters long; the rest was not added.",
  writing: "Writing a reply…",
} as const;

/** The sentence for a refused request: its status and the server's `detail`. */
export function friendlyRefusal(status: number, detail: string | undefined): string {
  const text = (detail ?? "").toLowerCase();
  if (status === 429) return /quota|monthly/.test(text) ? TEXTS.unavailable : TEXTS.tooFast;
  if (status === 403) {
    if (text.includes("identity")) return TEXTS.identity;
    if (text.includes("website")) return TEXTS.notHere;
    return TEXTS.unavailable;
  }
  if (status === 404) return TEXTS.missing;
  if (status === 503 || status === 502 || status === 504) return TEXTS.unavailable;
  return TEXTS.failed;
}
