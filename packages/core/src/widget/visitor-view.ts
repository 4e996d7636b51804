import type { Message, MessageSource } from "../domain/conversation.js";
import { toMessageView, toSourceView } from "../operator/views.js";

// What the widget's public routes show a visitor of a message (docs/design.md §15, "Sources").

/** A POSIX absolute path, a Windows drive's or a UNC share's. */
const ABSOLUTE_PATH = /^(?:\/|[A-Za-z]:[\\/]|\\\\)/;

/**
 * A source as a visitor sees it. An absolute file path, what `parley ingest` stores so that adding
 * the file again from any folder replaces it, is named by its file name alone: the server's
 * folders are its owner's business. A URL, an uploaded file's name or a text's title (which may
 * hold a slash) is shown as it is.
 */
export function visitorSourceName(source: string): string {
  if (!ABSOLUTE_PATH.test(source)) return source;
  return source.split(/[\\/]/).filter((segment) => segment !== "").at(-1) ?? "";
}

const toVisitorSourceView = (source: MessageSource) => ({ ...toSourceView(source), source: visitorSourceName(source.source) });

/** The operator's view of a message, each source named as a visitor sees it. */
export function toVisitorMessageView(message: Message) {
  return { ...toMessageView(message), sources: message.sources.map(toVisitorSourceView) };
}
