import { useState } from "preact/hooks";
import { api, ApiError, describeFailure, unwrap } from "../api/client.js";
import { signIn, signOutReason } from "../session/session.js";
import { ErrorText } from "../ui/notice.js";

/**
 * Sign-in with an admin or agent key: checked against the API before the console opens. The
 * keys route, which only admin keys may call, tells the two apart (an agent key is refused 403).
 */
export function SignIn() {
  const [key, setKey] = useState("");
  const [error, setError] = useState<string | null>(signOutReason.value);
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    const candidate = key.trim();
    if (!candidate) return setError("Paste an admin or agent key to sign in.");
    setBusy(true);
    setError(null);
    try {
      const headers = { authorization: `Bearer ${candidate}` };
      await unwrap(api.GET("/v1/admin/chatbots", { params: { query: { limit: 1 } }, headers }));
      const isAdmin = await unwrap(api.GET("/v1/admin/keys", { params: { query: { limit: 1 } }, headers })).then(
        () => true,
        (failure: unknown) => {
          if (failure instanceof ApiError && failure.status === 403) return false;
          throw failure;
        },
      );
      signIn(candidate, isAdmin ? "admin" : "agent");
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
        <p>
          Sign in with an admin key, or an agent's key to answer conversations. <code>npm start</code> prints an admin key on a new database;{" "}
          <code>parley user list</code> shows your user id, and <code>parley key create --user USER_ID --scope admin</code> issues another.
        </p>
        <label for="admin-key">Admin key or agent key</label>
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
