import { useEffect, useState } from "preact/hooks";
import { ErrorText } from "../ui/notice.js";
import { clearDraft, readDraft, writeDraft } from "./drafts.js";

/** The longest reply the API takes, in characters (docs/design.md §4). */
export const MAX_REPLY_CHARS = 32_000;

/**
 * The agent's reply box: Enter sends, Shift+Enter starts a new line. The draft is kept in this
 * browser per conversation (so a reload keeps it), kept after a failed send, and cleared once
 * sent; a refusal shows right under the box, with the character count against the limit, until
 * the text is edited (`onEdit`) or sent again.
 */
export function ReplyBox(props: { conversationId: string; onSend: (text: string) => Promise<boolean>; onEdit: () => void; busy: boolean; takenOver: boolean; error: string | null }) {
  const { conversationId, onSend, onEdit, busy, takenOver, error } = props;
  const [text, setText] = useState(() => readDraft(conversationId));
  useEffect(() => setText(readDraft(conversationId)), [conversationId]);
  const length = [...text].length;
  const over = length > MAX_REPLY_CHARS;

  function change(value: string) {
    setText(value);
    writeDraft(conversationId, value);
    onEdit();
  }

  async function send() {
    const content = text.trim();
    if (!content || busy) return;
    if (await onSend(content)) {
      setText("");
      clearDraft(conversationId);
    }
  }

  return (
    <form
      class="reply"
      onSubmit={(event) => {
        event.preventDefault();
        void send();
      }}
    >
      <label for="reply-text">{takenOver ? "Reply to the visitor" : "Reply to the visitor (this takes the conversation over)"}</label>
      <textarea
        id="reply-text"
        dir="auto"
        rows={3}
        value={text}
        aria-invalid={over || Boolean(error)}
        aria-describedby="reply-count reply-error"
        placeholder="Type a reply. Enter sends, Shift+Enter starts a new line."
        onInput={(event) => change(event.currentTarget.value)}
        onKeyDown={(event) => {
          if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
            event.preventDefault();
            void send();
          }
        }}
      />
      <div class="reply-foot">
        <span id="reply-count" class={over ? "counter over" : "counter"} aria-live="polite">
          {length.toLocaleString("en-US")} / {MAX_REPLY_CHARS.toLocaleString("en-US")} characters{over ? `: ${(length - MAX_REPLY_CHARS).toLocaleString("en-US")} too many` : ""}
        </span>
        <button type="submit" disabled={busy || !text.trim()}>
          Send reply
        </button>
      </div>
      <div id="reply-error">
        <ErrorText error={error} />
      </div>
    </form>
  );
}
