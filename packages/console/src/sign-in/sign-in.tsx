import { useState } from "preact/hooks";
import { api, describeFailure, unwrap } from "../api/client.js";
import { signIn, signOutReason } from "../session/session.js";
import { ErrorText } from "../ui/notice.js";

/** Sign-in with an admin key: checked against the API before the console opens. */
export function SignIn() {
  const [key, setKey] = useState("");
  const [error, setError] = useState<string | null>(signOutReason.value);
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    const candidate = key.trim();
    if (!candidate) return setError("Paste an admin key to sign in.");
    setBusy(true);
    setError(null);
    try {
      await unwrap(api.GET("/v1/admin/chatbots", { params: { query: { limit: 1 } }, headers: { authorization: `Bearer ${candidate}` } }));
      signIn(candidate);
    } catch (failure) {
      setError(describeFailure(failure));
    } finally {
      setBusy(false);
    }
  }

  return (
    <main class="sign-in">
      <form onSubmit={submit} aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">Parley console</h1>
        <p>Sign in with an admin API key. <code>npm start</code> prints one on a new database; <code>parley key create --user USER --scope admin</code> issues another.</p>
        <label for="admin-key">Admin key</label>
        <input id="admin-key" name="admin-key" type="password" autoComplete="off" spellcheck={false} value={key} onInput={(event) => setKey(event.currentTarget.value)} autoFocus />
        <button type="submit" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
        <ErrorText error={error} />
        <p class="hint">The key stays in this tab's session storage and is forgotten when the tab closes.</p>
      </form>
    </main>
  );
}
