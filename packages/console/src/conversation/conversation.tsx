import { useEffect, useRef } from "preact/hooks";
import { onLiveChange } from "../api/live-events.js";
import type { Conversation, ConversationWithMessages } from "../api/types.js";
import { chatbotName } from "../chatbots/chatbots-data.js";
import { openConversationId } from "../inbox/inbox-data.js";
import { ATTENTION_LABELS } from "../inbox/inbox-state.js";
import { markReadUpTo } from "../inbox/read-state.js";
import { href } from "../router.js";
import { formatTime } from "../ui/format.js";
import { ErrorText } from "../ui/notice.js";
import { useAction, useResource } from "../ui/use-resource.js";
import { getConversation, handBack, mergeMessages, sendReply, takeOver } from "./conversation-data.js";
import { MessageItem } from "./message-item.js";
import { ReplyBox } from "./reply-box.js";
import { describeEvent, timelineOf } from "./timeline.js";

/** Marks what is on screen read for this key, when the page is in view (a hidden tab reads nothing). */
function readLatest(id: string, data: ConversationWithMessages | undefined): void {
  const last = data?.messages.at(-1);
  if (last && document.visibilityState === "visible") void markReadUpTo(id, last.id).catch(() => undefined);
}

/** One conversation: its timeline (messages, takeovers, hand-backs), why it needs attention, takeover, hand-back and the reply box. */
export function ConversationView({ id }: { id: string }) {
  const conversation = useResource(() => getConversation(id), id);
  const takeover = useAction();
  const reply = useAction();
  const latest = useRef<ConversationWithMessages | undefined>(undefined);
  latest.current = conversation.data;
  const end = useRef<HTMLLIElement>(null);
  const { setError: setTakeoverError } = takeover;
  const { setError: setReplyError } = reply;

  // A refusal belongs to the conversation it was made in, not to the next one opened.
  useEffect(() => {
    setTakeoverError(null);
    setReplyError(null);
  }, [id, setTakeoverError, setReplyError]);

  useEffect(() => {
    openConversationId.value = id;
    const stop = onLiveChange(async (event) => {
      if (event && event.data.conversation_id !== id) return;
      const last = latest.current?.messages.at(-1)?.id;
      try {
        // A rating changes a message already shown: read them all again.
        if (event?.type === "message.rated") {
          const fresh = await getConversation(id);
          conversation.setData(() => fresh);
          return;
        }
        const newer = await getConversation(id, last);
        conversation.setData((current) => (current ? { ...newer, messages: mergeMessages(current.messages, newer.messages) } : newer));
      } catch {
        // The next event or poll fetches again; the page keeps what it shows.
      }
    });
    // Coming back to a hidden tab reads what arrived meanwhile.
    const onVisible = () => readLatest(id, latest.current);
    document.addEventListener("visibilitychange", onVisible);
    return () => {
      stop();
      document.removeEventListener("visibilitychange", onVisible);
      openConversationId.value = null;
    };
  }, [id]);

  const count = conversation.data?.messages.length ?? 0;
  useEffect(() => {
    end.current?.scrollIntoView({ block: "end" });
    readLatest(id, latest.current);
  }, [count]);

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
              {data.human_takeover ? (
                <button type="button" disabled={takeover.busy} onClick={() => void takeover.run(() => handBack(id)).then(replace)}>
                  Hand back to the bot
                </button>
              ) : (
                <button type="button" disabled={takeover.busy} onClick={() => void takeover.run(() => takeOver(id)).then(replace)}>
                  Take over
                </button>
              )}
            </div>
            <ErrorText error={takeover.error} />
          </header>
          {data.needs_attention ? (
            <p class="attention-note" role="note">
              <strong>Needs attention:</strong> {data.attention_reason ? ATTENTION_LABELS[data.attention_reason] : "the bot could not answer"}. An agent's reply clears this.
            </p>
          ) : null}
          <ol class="messages" aria-label="Timeline" aria-live="polite">
            {timelineOf(data.messages, data.events).map((entry) =>
              entry.kind === "message" ? (
                <MessageItem key={entry.message.id} message={entry.message} />
              ) : (
                <li key={`${entry.event.type}-${entry.at}`} class="timeline-event">
                  <span>{describeEvent(entry.event)}</span> <time dateTime={entry.at}>{formatTime(entry.at)}</time>
                </li>
              ),
            )}
            <li ref={end} class="end" aria-hidden="true" />
          </ol>
          <ReplyBox
            conversationId={id}
            busy={reply.busy}
            error={reply.error}
            onEdit={() => setReplyError(null)}
            takenOver={data.human_takeover}
            onSend={async (text) => {
              const message = await reply.run(() => sendReply(id, text));
              if (!message) return false;
              conversation.setData((current) =>
                current ? { ...current, human_takeover: true, needs_attention: false, attention_reason: null, messages: mergeMessages(current.messages, [message]) } : current,
              );
              // The takeover a reply may start is on the timeline: fetch the conversation's own view.
              void getConversation(id, message.id).then((fresh) => replace(fresh), () => undefined);
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
