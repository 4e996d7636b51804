import { createSseParser } from "@parley/sse-parser";

/** Reads the admin event stream from Node until an event passes `test`; returns its id. */
export async function waitForEventId(url: string, key: string, test: (type: string, data: string) => boolean, started: () => Promise<unknown>): Promise<string> {
  const abort = new AbortController();
  const response = await fetch(`${url}/v1/admin/events`, { headers: { authorization: `Bearer ${key}`, accept: "text/event-stream" }, signal: abort.signal });
  if (!response.ok || !response.body) throw new Error(`The event stream answered ${response.status}.`);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  const parser = createSseParser();
  await started();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error("The event stream ended first.");
      const found = parser.feed(value).find((event) => test(event.event, event.data));
      if (found?.id) return found.id;
    }
  } finally {
    abort.abort();
  }
}
