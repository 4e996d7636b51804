import { signal } from "@preact/signals";

// The admin key lives in sessionStorage only (docs/design.md §11): gone when the tab closes,
// never in a URL, a cookie or localStorage, and never logged.
const STORAGE_KEY = "parley.adminKey";

function readStoredKey(): string | null {
  try {
    return sessionStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

/** The signed-in admin key, or null on the sign-in screen. */
export const adminKey = signal<string | null>(readStoredKey());

/** Why the last session ended, shown on the sign-in screen (e.g. a revoked key). */
export const signOutReason = signal<string | null>(null);

/** Keeps the key for this tab and shows the console. */
export function signIn(key: string): void {
  sessionStorage.setItem(STORAGE_KEY, key);
  signOutReason.value = null;
  adminKey.value = key;
}

/** Forgets the key; `reason` is shown on the sign-in screen. */
export function signOut(reason: string | null = null): void {
  sessionStorage.removeItem(STORAGE_KEY);
  signOutReason.value = reason;
  adminKey.value = null;
}
