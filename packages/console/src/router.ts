import { signal } from "@preact/signals";

// Hash routing: the server serves one index.html at /console, and client routes never reach it.

/** The current client route, e.g. `/inbox` or `/conversations/<id>`. */
export const route = signal(currentRoute());

function currentRoute(): string {
  const hash = location.hash.replace(/^#/, "");
  return hash.startsWith("/") ? hash : "/inbox";
}

window.addEventListener("hashchange", () => (route.value = currentRoute()));

/** Goes to a client route. */
export function navigate(path: string): void {
  location.hash = path;
}

/** The href of a client route, for links. */
export const href = (path: string) => `#${path}`;
