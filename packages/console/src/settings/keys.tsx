import { useState } from "preact/hooks";
import type { Scope } from "../api/types.js";
import { formatTime } from "../ui/format.js";
import { ConfirmButton, EmptyState, ErrorText } from "../ui/notice.js";
import { useAction, useResource } from "../ui/use-resource.js";
import { SecretOnce } from "./secret-once.js";
import { issueKey, listKeys, revokeKey } from "./settings-data.js";
import { signOut } from "../session/session.js";
import { TableHead } from "../ui/table-head.js";

/** API keys: issue one (shown once), copy it, revoke one. */
export function Keys() {
  const keys = useResource(listKeys, "keys");
  const action = useAction();
  const [name, setName] = useState("");
  const [scope, setScope] = useState<Scope>("chat");
  const [issued, setIssued] = useState<string | null>(null);
  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title">API keys</h1>
      <div class="card">
        <h2>Issue a key</h2>
        <form
          class="inline"
          onSubmit={(event) => {
            event.preventDefault();
            if (scope === "agent" && !name.trim()) return action.setError("name: an agent key needs the agent's name");
            void action.run(() => issueKey(name.trim() || "unnamed", scope)).then((created) => {
              if (!created) return;
              setIssued(created.key);
              setName("");
              void keys.reload();
            });
          }}
        >
          <label class="grow">
            Name
            <input
              name="key-name"
              value={name}
              aria-invalid={Boolean(action.error?.startsWith("name:"))}
              onInput={(event) => setName(event.currentTarget.value)}
              placeholder={scope === "agent" ? "The agent's name, e.g. Ana" : "e.g. website widget"}
            />
          </label>
          <label>
            Scope
            <select value={scope} onChange={(event) => setScope(event.currentTarget.value as Scope)}>
              <option value="chat">chat: the three chat routes</option>
              <option value="admin">admin: this console and the operator API</option>
              <option value="agent">agent: answers conversations in this console only</option>
            </select>
          </label>
          <button type="submit" disabled={action.busy}>
            Issue key
          </button>
        </form>
        {issued ? <SecretOnce label="Your new API key." secret={issued} onDismiss={() => setIssued(null)} /> : null}
        <ErrorText error={action.error} />
      </div>
      <ErrorText error={keys.error} />
      {keys.data && keys.data.data.length === 0 ? (
        <EmptyState title="No keys.">Issue a chat key for each place that calls the chat API.</EmptyState>
      ) : (
        <table class="list">
          <TableHead columns={["Name", "Scope", "Created", "Last used", "State"]} />
          <tbody>
            {(keys.data?.data ?? []).map((key) => (
              <tr key={key.id}>
                <td data-label="Name">
                  {key.name}
                  {key.current ? <> <span class="badge human">In use here</span></> : null}
                </td>
                <td data-label="Scope">{key.scope}</td>
                <td data-label="Created">{formatTime(key.created_at)}</td>
                <td data-label="Last used">{formatTime(key.last_used_at)}</td>
                <td data-label="State">
                  {key.revoked_at ? (
                    <span class="badge paused">Revoked {formatTime(key.revoked_at)}</span>
                  ) : key.current ? (
                    // Revoking the key this console is signed in with locks this tab out: say so first.
                    <ConfirmButton
                      label="Revoke"
                      accessibleLabel={`Revoke ${key.name}`}
                      question={`${key.name} is the key you are signed in with. Revoking it signs you out of this console at once; you will need another admin key to sign in again.`}
                      confirmLabel="Revoke it and sign out"
                      onConfirm={() =>
                        void action.run(() => revokeKey(key.id)).then(() =>
                          signOut(`You revoked the key you were signed in with (${key.name}). Sign in with another admin key; parley user list and parley key create --user USER_ID --scope admin issue one.`),
                        )
                      }
                    />
                  ) : (
                    <ConfirmButton
                      label="Revoke"
                      accessibleLabel={`Revoke ${key.name}`}
                      question={`Revoke ${key.name}? Calls with it fail at once.`}
                      confirmLabel="Yes, revoke it"
                      onConfirm={() => void action.run(() => revokeKey(key.id)).then(() => keys.reload())}
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
