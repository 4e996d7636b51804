import { useState } from "preact/hooks";
import type { Message } from "../api/types.js";
import { authorLabel, formatTime } from "../ui/format.js";
import { COLLAPSE_AFTER_CHARS } from "./timeline.js";

/** A source of a model reply (docs/design.md §14), when the server sends them. */
interface Source {
  document_id?: string | null;
  title?: string;
  source?: string;
  page?: number | null;
}

/** A rating of a model reply (docs/design.md §14), when the server sends it. */
interface Feedback {
  rating?: "up" | "down";
  comment?: string | null;
}

/** The sources and feedback of a message: fields other work adds to the view, read only when present. */
function extrasOf(message: Message): { sources: Source[]; feedback: Feedback | null } {
  const extra = message as Message & { sources?: unknown; feedback?: unknown };
  return { sources: Array.isArray(extra.sources) ? (extra.sources as Source[]) : [], feedback: extra.feedback && typeof extra.feedback === "object" ? (extra.feedback as Feedback) : null };
}

/** One message of the timeline: its author (an agent by name), time and text, collapsed when long, with its sources. */
export function MessageItem({ message }: { message: Message }) {
  const [expanded, setExpanded] = useState(false);
  const characters = [...message.content];
  const long = characters.length > COLLAPSE_AFTER_CHARS;
  const text = long && !expanded ? `${characters.slice(0, COLLAPSE_AFTER_CHARS).join("")}…` : message.content;
  const { sources, feedback } = extrasOf(message);
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
          <span class="muted">Sources:</span>
          <ul>
            {sources.map((source, index) => (
              <li key={`${source.document_id ?? index}`}>
                {source.title || source.source}
                {source.page ? `, page ${source.page}` : ""}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {feedback?.rating ? (
        <p class="muted feedback">
          Visitor rated it {feedback.rating === "up" ? "helpful" : "not helpful"}
          {feedback.comment ? `: “${feedback.comment}”` : ""}
        </p>
      ) : null}
    </li>
  );
}
