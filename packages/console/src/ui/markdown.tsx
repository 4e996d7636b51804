import type * as MarkdownModule from "@parley/markdown";
import "@parley/markdown/markdown.css";
import { signal } from "@preact/signals";
import { useLayoutEffect, useRef } from "preact/hooks";

// The renderer the widget's frame uses (@parley/markdown), in a chunk of its own: fetched (from
// the same origin) the first time a screen shows a reply, so the console's first load stays
// within its budget. Until it arrives a reply shows as its text.
const renderer = signal<typeof MarkdownModule | null>(null);
let requested = false;

function useRenderer(): typeof MarkdownModule | null {
  if (!requested) {
    requested = true;
    import("@parley/markdown").then(
      (module) => (renderer.value = module),
      () => (requested = false), // a server updated since the page loaded: the next screen asks again
    );
  }
  return renderer.value;
}

/** The renderer's nodes for `text`, put into the element `host` holds once the renderer has arrived. */
function useRendered<T extends HTMLElement>(text: string, render: (module: typeof MarkdownModule, text: string) => DocumentFragment) {
  const module = useRenderer();
  const host = useRef<T>(null);
  useLayoutEffect(() => {
    if (module) host.current?.replaceChildren(render(module, text));
  }, [text, module, render]);
  return { ready: module !== null, host };
}

const markdownOf = (module: typeof MarkdownModule, text: string) => module.renderMarkdown(text, document);
const linkedTextOf = (module: typeof MarkdownModule, text: string) => module.renderLinkedText(text, document);

/**
 * A model's reply as the visitor saw it in the widget: its Markdown through the frame's own
 * renderer, which builds elements and text nodes and never parses HTML.
 */
export function Markdown({ text, class: className }: { text: string; class?: string }) {
  const { ready, host } = useRendered<HTMLDivElement>(text, markdownOf);
  return ready ? <div class={className} ref={host} /> : <p class={className} dir="auto">{text}</p>;
}

/**
 * An agent's reply as the visitor saw it in the widget: the text as typed, with only its web
 * addresses made links (text nodes and anchors, never parsed HTML).
 */
export function LinkedText({ text, class: className }: { text: string; class?: string }) {
  const { ready, host } = useRendered<HTMLParagraphElement>(text, linkedTextOf);
  return (
    <p class={className} dir="auto" ref={host}>
      {ready ? null : text}
    </p>
  );
}

/** What turns a reply into its words on one line, without its Markdown (its text until the renderer arrives). */
export function usePlainText(): (markdown: string) => string {
  return useRenderer()?.plainText ?? ((markdown) => markdown);
}
