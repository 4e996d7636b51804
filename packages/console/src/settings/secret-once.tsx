import { useState } from "preact/hooks";

/** A secret the API shows only once, with a copy button and a way to dismiss it. */
export function SecretOnce({ label, secret, onDismiss }: { label: string; secret: string; onDismiss: () => void }) {
  const [copied, setCopied] = useState<string | null>(null);
  return (
    <div class="secret" role="region" aria-label={label}>
      <p>
        <strong>{label}</strong> It is shown only this once: copy it now.
      </p>
      <code class="secret-value">{secret}</code>
      <div class="actions">
        <button
          type="button"
          onClick={() =>
            navigator.clipboard.writeText(secret).then(
              () => setCopied("Copied."),
              () => setCopied("The browser refused the clipboard: select the text and copy it."),
            )
          }
        >
          Copy
        </button>
        <button type="button" onClick={onDismiss}>
          I have copied it
        </button>
        <span role="status">{copied}</span>
      </div>
    </div>
  );
}
