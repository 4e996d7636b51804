import { useState } from "preact/hooks";

/** The agent's reply box: Enter sends, Shift+Enter starts a new line. */
export function ReplyBox({ onSend, busy, takenOver }: { onSend: (text: string) => Promise<boolean>; busy: boolean; takenOver: boolean }) {
  const [text, setText] = useState("");

  async function send() {
    const content = text.trim();
    if (!content || busy) return;
    if (await onSend(content)) setText("");
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
        rows={3}
        value={text}
        placeholder="Type a reply. Enter sends, Shift+Enter starts a new line."
        onInput={(event) => setText(event.currentTarget.value)}
        onKeyDown={(event) => {
          if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
            event.preventDefault();
            void send();
          }
        }}
      />
      <button type="submit" disabled={busy || !text.trim()}>
        Send reply
      </button>
    </form>
  );
}
