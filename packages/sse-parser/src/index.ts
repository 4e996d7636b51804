/** One dispatched Server-Sent Event. */
export interface ServerSentEvent {
  id: string | undefined;
  event: string;
  data: string;
}

/**
 * An incremental parser of the `text/event-stream` format (WHATWG HTML §9.2.6): feed it text as
 * it arrives, in pieces of any size, and it returns the events completed so far. Comment lines
 * (the server's keep-alives) are skipped; `lastEventId` survives events without an `id:` line.
 */
export function createSseParser() {
  let buffer = "";
  let data: string[] = [];
  let eventType = "";
  let lastEventId: string | undefined;
  let dispatchedId: string | undefined;
  let sawField = false;

  function line(text: string, out: ServerSentEvent[]): void {
    if (text === "") {
      if (sawField && data.length > 0) {
        out.push({ id: lastEventId, event: eventType || "message", data: data.join("\n") });
        dispatchedId = lastEventId;
      }
      data = [];
      eventType = "";
      sawField = false;
      return;
    }
    if (text.startsWith(":")) return;
    const colon = text.indexOf(":");
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? "" : text.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    sawField = true;
    if (field === "data") data.push(value);
    else if (field === "event") eventType = value;
    else if (field === "id" && !value.includes("\0")) lastEventId = value;
  }

  return {
    /** Parses more of the stream; returns the events it completed. */
    feed(text: string): ServerSentEvent[] {
      buffer += text;
      const out: ServerSentEvent[] = [];
      for (;;) {
        const match = /\r\n|\r|\n/.exec(buffer);
        // A lone "\r" at the end may be the first half of "\r\n": wait for the next piece.
        if (!match || (match[0] === "\r" && match.index === buffer.length - 1)) break;
        line(buffer.slice(0, match.index), out);
        buffer = buffer.slice(match.index + match[0].length);
      }
      return out;
    },
    /** The id of the last event dispatched, to resume from with `Last-Event-ID`. */
    get lastEventId() {
      return dispatchedId;
    },
  };
}
