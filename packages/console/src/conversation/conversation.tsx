import { useEffect, useRef } from "preact/hooks";
import { onLiveChange } from "../api/live-events.js";
import type { Conversation, ConversationWithMessages } from "../api/types.js";
import { chatbotName } from "../chatbots/chatbots-data.js";
import { markRead, openConversationId } from "../inbox/inbox-data.js";
import { href } from "../router.js";
import { AUTHOR_LABELS, formatTime } from "../ui/format.js";
import { ErrorText } from "../ui/notice.js";
import { useAction, useResource } from "../ui/use-resource.js";
import { getConversation, handBack, mergeMessages, sendReply, takeOver } from "./conversation-data.js";
import { ReplyBox } from "./reply-box.js";

/** One conversation: its history by author and time, takeover, hand-back and the reply box. */
export function ConversationView({ id }: { id: string }) {
  const conversation = useResource(() => getConversation(id), id);
  const action = useAction();
  const latest = useRef<ConversationWithMessages | undefined>(undefined);
  latest.current = conversation.data;
  const end = useRef<HTMLLIElement>(null);

  useEffect(() => {
    openConversationId.value = id;
    markRead(id);
    const stop = onLiveChange(async (event) => {
      if (event && event.data.conversation_id !== id) return;
      const last = latest.current?.messages.at(-1)?.id;
      try {
        const newer = await getConversation(id, last);
        conversation.setData((current) => (current ? { ...newer, messages: mergeMessages(current.messages, newer.messages) } : newer));
      } catch {
        // The next event or poll fetches again; the page keeps what it shows.
      }
    });
    return () => {
      stop();
      openConversationId.value = null;
    };
  }, [id]);

  const count = conversation.data?.messages.length ?? 0;
  useEffect(() => end.current?.scrollIntoView({ block: "end" }), [count]);

  const data = conversation.data;
  // The takeover routes answer the conversation without its messages: keep the ones shown.
  const replace = (next: Conversation | undefined) => {
    if (next) conversation.setData((current) => (current ? { ...current, ...next, messages: current.messages } : current));
  };

  return (
    <section aria-labelledby="conversation-title" class="conversation">
      <p>
        <a href={href("/inbox")}>← Back to the inbox</a>
      </p>
      <ErrorText error={conversation.error} />
      {data ? (
        <>
          <header class="screen-header">
            <h1 id="conversation-title">
              {data.session_id} <span class="muted">· {chatbotName(data.chatbot_id)}</span>
            </h1>
            <div class="actions">
              {data.human_takeover ? <span class="badge human">Taken over by an agent</span> : <span class="badge">The bot answers</span>}
              {data.needs_attention ? <span class="badge attention">Needs attention</span> : null}
              {data.human_takeover ? (
                <button type="button" disabled={action.busy} onClick={() => void action.run(() => handBack(id)).then(replace)}>
                  Hand back to the bot
                </button>
              ) : (
                <button type="button" disabled={action.busy} onClick={() => void action.run(() => takeOver(id)).then(replace)}>
                  Take over
                </button>
              )}
            </div>
          </header>
          <ErrorText error={action.error} />
          <ol class="messages" aria-label="Messages" aria-live="polite">
            {data.messages.map((message) => (
              <li key={message.id} class={`message ${message.author}`}>
                <span class="meta">
                  <strong>{AUTHOR_LABELS[message.author]}</strong>{" "}
                  <time dateTime={message.created_at}>{formatTime(message.created_at)}</time>
                </span>
                <p class="content">{message.content}</p>
              </li>
            ))}
            <li ref={end} class="end" aria-hidden="true" />
          </ol>
          <ReplyBox
            busy={action.busy}
            takenOver={data.human_takeover}
            onSend={async (text) => {
              const message = await action.run(() => sendReply(id, text));
              if (!message) return false;
              conversation.setData((current) => (current ? { ...current, human_takeover: true, needs_attention: false, messages: mergeMessages(current.messages, [message]) } : current));
              return true;
            }}
          />
        </>
      ) : conversation.loading ? (
        <p class="muted">Loading the conversation…</p>
      ) : null}
    </section>
  );
}
