import type { ComponentType, JSX } from "preact";
import { useEffect, useState } from "preact/hooks";
import { ErrorText } from "./notice.js";

/**
 * A component whose code is a chunk of its own, fetched (from the same origin) the first time it
 * renders, so it stays out of the console's first load. Until then it shows `loading`; a chunk
 * that fails to load (a server updated since the page loaded) says to reload.
 */
export function lazyComponent<P extends object>(load: () => Promise<ComponentType<P>>, loading: string): (props: P) => JSX.Element {
  let loaded: ComponentType<P> | undefined;
  return function Lazy(props: P) {
    const [component, setComponent] = useState<ComponentType<P> | undefined>(() => loaded);
    const [error, setError] = useState<string | null>(null);
    useEffect(() => {
      if (component) return;
      let current = true;
      load().then(
        (found) => {
          loaded = found;
          if (current) setComponent(() => found);
        },
        () => current && setError("This part of the console could not be loaded. Reload the page to try again."),
      );
      return () => {
        current = false;
      };
    }, []);
    const Component = component;
    if (Component) return <Component {...props} />;
    return error ? <ErrorText error={error} /> : <p class="muted">{loading}</p>;
  };
}
