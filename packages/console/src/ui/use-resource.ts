import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { describeFailure } from "../api/client.js";

/** Data loaded from the API, with its error in words and a way to load it again. */
export interface Resource<T> {
  data: T | undefined;
  error: string | null;
  loading: boolean;
  reload(): Promise<void>;
  setData(update: (current: T | undefined) => T | undefined): void;
}

/** Loads `load()` when `key` changes; a newer load wins over a slower older one. */
export function useResource<T>(load: () => Promise<T>, key: string): Resource<T> {
  const [data, setDataState] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const generation = useRef(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  const reload = useCallback(async () => {
    const mine = ++generation.current;
    setLoading(true);
    try {
      const result = await loadRef.current();
      if (mine !== generation.current) return;
      setDataState(() => result);
      setError(null);
    } catch (failure) {
      if (mine === generation.current) setError(describeFailure(failure));
    } finally {
      if (mine === generation.current) setLoading(false);
    }
  }, []);

  useEffect(() => {
    setDataState(undefined);
    void reload();
  }, [key, reload]);

  return { data, error, loading, reload, setData: (update) => setDataState(update) };
}

/** Runs one user action at a time, keeping its failure in words for the screen. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = useCallback(async <T,>(action: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(null);
    try {
      return await action();
    } catch (failure) {
      setError(describeFailure(failure));
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, setError, run };
}
