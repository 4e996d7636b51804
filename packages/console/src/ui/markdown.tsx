import { renderMarkdown } from "@parley/markdown";
import { useLayoutEffect, useRef } from "preact/hooks";

/**
 * A model's reply as the visitor saw it in the widget: its Markdown through the frame's own
 * renderer (@parley/markdown), which builds elements and text nodes and never parses HTML.
 */
export function Markdown({ text, class: className }: { text: string; class?: string }) {
  const host = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    host.current?.replaceChildren(renderMarkdown(text, document));
  }, [text]);
  return <div class={className} ref={host} />;
}
