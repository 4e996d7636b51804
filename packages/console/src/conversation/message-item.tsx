import { useState } from "preact/hooks";
import type { Message, MessageSource } from "../api/types.js";
import { authorLabel, formatTime } from "../ui/format.js";
import { COLLAPSE_AFTER_CHARS } from "./timeline.js";

/** A visitor's rating of a model reply (docs/design.md §14). */
type Feedback = NonNullable<Message["feedback"]>;

/** A source's address when it is a web page (http or https only: nothing else becomes a link). */
export function webAddressOf(source: string): string | null {
  try {
    const url = new URL(source);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * One source of a reply: a web page as a link (its title, opening in a new tab), a file by its
 * title and file name, and the PDF page when there is one.
 */
function SourceItem({ source }: { source: MessageSource }) {
  const address = webAddressOf(source.source);
  const page = source.page ? `, page ${source.page}` : "";
  if (address)
    return (
      <li>
        <a href={address} target="_blank" rel="noopener noreferrer" title={address}>
          {source.title || address}
        </a>
        {page}
      </li>
    );
  const named = source.title && source.title !== source.source ? `${source.title} (${source.source}${page})` : `${source.source}${page}`;
  return <li>{named}</li>;
}

/** The visitor's rating: a thumb with its meaning in words for screen readers, and the comment. */
function Rating({ feedback }: { feedback: Feedback }) {
  const helpful = feedback.rating === "up";
  return (
    <p class={`feedback ${helpful ? "up" : "down"}`}>
      <span class={`badge rating ${helpful ? "up" : "down"}`}>
        <span aria-hidden="true">{helpful ? "👍" : "👎"}</span> {helpful ? "Rated helpful" : "Rated not helpful"}
      </span>
      {feedback.comment ? <q class="comment">{feedback.comment}</q> : null}
    </p>
  );
}

/** One message of the timeline: its author (an agent by name), time and text, collapsed when long, with its sources and rating. */
export function MessageItem({ message }: { message: Message }) {
  const [expanded, setExpanded] = useState(false);
  const characters = [...message.content];
  const long = characters.length > COLLAPSE_AFTER_CHARS;
  const text = long && !expanded ? `${characters.slice(0, COLLAPSE_AFTER_CHARS).join("")}…` : message.content;
  const sources = message.sources ?? [];
  const feedback = message.feedback;
  return (
    <li class={`message ${message.author}`}>
      <span class="meta">
        <strong>{authorLabel(message.author, message.agent_name)}</strong> <time dateTime={message.created_at}>{formatTime(message.created_at)}</time>
      </span>
      <p class="content">{text}</p>
      {long ? (
        <button type="button" class="link" aria-expanded={expanded} onClick={() => setExpanded(!expanded)}>
          {expanded ? "Show less" : `Show all (${characters.length.toLocaleString()} characters)`}
        </button>
      ) : null}
      {sources.length > 0 ? (
        <div class="sources">
          <span class="muted" id={`sources-${message.id}`}>
            Sources:
          </span>
          <ul aria-labelledby={`sources-${message.id}`}>
            {sources.map((source) => (
              <SourceItem key={source.document_id} source={source} />
            ))}
          </ul>
        </div>
      ) : null}
      {feedback ? <Rating feedback={feedback} /> : null}
    </li>
  );
}
