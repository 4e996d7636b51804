import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";

/** An API error in words, announced to screen readers. */
export function ErrorText({ error }: { error: string | null | undefined }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {error}
    </p>
  );
}

/** What an empty screen says to do next. */
export function EmptyState({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty">
      <p class="empty-title">{title}</p>
      {children ? <p>{children}</p> : null}
    </div>
  );
}

/** A destructive button that asks once more before doing it. */
export function ConfirmButton(props: { label: string; question: string; confirmLabel: string; onConfirm: () => void; disabled?: boolean; accessibleLabel?: string }) {
  const { label, question, confirmLabel, onConfirm, disabled, accessibleLabel } = props;
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <button type="button" class="danger" disabled={disabled} aria-label={accessibleLabel} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  return (
    <span class="confirm" role="group" aria-label={question}>
      <span>{question}</span>
      <button type="button" class="danger" onClick={() => (setAsking(false), onConfirm())}>
        {confirmLabel}
      </button>
      <button type="button" onClick={() => setAsking(false)} autoFocus>
        Cancel
      </button>
    </span>
  );
}
