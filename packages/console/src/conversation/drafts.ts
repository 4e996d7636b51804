// Reply drafts, per conversation, in this browser's localStorage: a reload, or a visit to
// another screen, keeps what the agent was writing. A sent reply clears its draft.

const PREFIX = "parley.draft.";

/** The saved draft of a conversation ("" for none). */
export function readDraft(conversationId: string): string {
  try {
    return localStorage.getItem(PREFIX + conversationId) ?? "";
  } catch {
    return "";
  }
}

/** Saves a draft (an empty one is removed). */
export function writeDraft(conversationId: string, text: string): void {
  try {
    if (text === "") localStorage.removeItem(PREFIX + conversationId);
    else localStorage.setItem(PREFIX + conversationId, text);
  } catch {
    // Storage full or refused: the draft lives in the page only.
  }
}

/** Forgets a conversation's draft. */
export const clearDraft = (conversationId: string) => writeDraft(conversationId, "");
