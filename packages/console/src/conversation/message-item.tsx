import { useState } from "preact/hooks";
import type { Message, MessageSource } from "../api/types.js";
import { authorLabel, formatTime } from "../ui/format.js";
import { LinkedText, Markdown } from "../ui/markdown.js";
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

/**
 * A thumb up or down, drawn (Material Icons' `thumb_up`, Apache-2.0) rather than an emoji, which
 * a system without an emoji font shows as an empty box. Decorative: the words say the rating.
 */
function Thumb({ down }: { down: boolean }) {
  return (
    <svg class="thumb" viewBox="0 0 24 24" width="14" height="14" aria-hidden="true" focusable="false">
      <path
        transform={down ? "rotate(180 12 12)" : undefined}
        fill="currentColor"
        d="M1 21h4V9H1v12zm22-11c0-1.1-.9-2-2-2h-6.31l.95-4.57.03-.32c0-.41-.17-.79-.44-1.06L14.17 1 7.59 7.59C7.22 7.95 7 8.45 7 9v10c0 1.1.9 2 2 2h9c.83 0 1.54-.5 1.84-1.22l3.02-7.05c.09-.23.14-.47.14-.73v-2z"
      />
    </svg>
  );
}

/** The visitor's rating: a thumb with its meaning in words for screen readers, and the comment. */
function Rating({ feedback }: { feedback: Feedback }) {
  const helpful = feedback.rating === "up";
  return (
    <p class={`feedback ${helpful ? "up" : "down"}`}>
      <span class={`badge rating ${helpful ? "up" : "down"}`}>
        <Thumb down={!helpful} /> {helpful ? "Rated helpful" : "Rated not helpful"}
      </span>
      {feedback.comment ? <q class="comment">{feedback.comment}</q> : null}
    </p>
  );
}

/**
 * One message of the timeline: its author (an agent by name), time and text, collapsed when long,
 * with its sources and rating. A model's reply is rendered from its Markdown and an agent's with
 * its web addresses as links, as the widget shows them; a visitor's message is the text typed.
 */
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
      {message.author === "model" ? (
        <Markdown class="content markdown" text={text} />
      ) : message.author === "agent" ? (
        <LinkedText class="content" text={text} />
      ) : (
        <p class="content" dir="auto">
          {text}
        </p>
      )}
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
