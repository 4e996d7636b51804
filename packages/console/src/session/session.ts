import { signal } from "@preact/signals";

// The key lives in sessionStorage only (docs/design.md §11): gone when the tab closes, never in
// a URL, a cookie or localStorage, and never logged. Its role (admin or agent) is kept beside it,
// so a reload shows an agent only what an agent may do without asking the server first.
const STORAGE_KEY = "parley.adminKey";
const ROLE_KEY = "parley.role";

/** What the signed-in key may do in the console: everything (admin), or answer conversations (agent). */
export type Role = "admin" | "agent";

function readStored(name: string): string | null {
  try {
    return sessionStorage.getItem(name);
  } catch {
    return null;
  }
}

/** The signed-in key (admin or agent), or null on the sign-in screen. */
export const adminKey = signal<string | null>(readStored(STORAGE_KEY));

/** The signed-in key's role. */
export const role = signal<Role>(readStored(ROLE_KEY) === "agent" ? "agent" : "admin");

/** Why the last session ended, shown on the sign-in screen (e.g. a revoked key). */
export const signOutReason = signal<string | null>(null);

/** Keeps the key and its role for this tab and shows the console. */
export function signIn(key: string, keyRole: Role = "admin"): void {
  sessionStorage.setItem(STORAGE_KEY, key);
  sessionStorage.setItem(ROLE_KEY, keyRole);
  signOutReason.value = null;
  role.value = keyRole;
  adminKey.value = key;
}

/** Forgets the key; `reason` is shown on the sign-in screen. */
export function signOut(reason: string | null = null): void {
  sessionStorage.removeItem(STORAGE_KEY);
  sessionStorage.removeItem(ROLE_KEY);
  signOutReason.value = reason;
  adminKey.value = null;
}
