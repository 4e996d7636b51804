import { useEffect, useState } from "preact/hooks";
import type { Chatbot } from "../api/types.js";
import { role } from "../session/session.js";
import { SecretOnce } from "../settings/secret-once.js";
import { ConfirmButton, ErrorText } from "../ui/notice.js";
import { useAction } from "../ui/use-resource.js";
import { frameServed, makeWidgetSecret, originsOf, snippetOf, updateWidget, WIDGET_LIMITS, widgetFieldOfError, widgetItemOfError, type WidgetField, type WidgetFields, type WidgetPart } from "./widget-data.js";

/** What the form holds: the settings, with the origins as typed (one per line) and four question boxes. */
interface Draft extends Omit<WidgetFields, "allowed_origins" | "starter_questions"> {
  origins: string;
  questions: string[];
}

function draftOf(widget: Chatbot["widget"]): Draft {
  const { allowed_origins, starter_questions, enabled, title, welcome_message, accent_color, position, identity_required } = widget;
  const questions = [...starter_questions];
  while (questions.length < WIDGET_LIMITS.starter_questions) questions.push("");
  return { enabled, title, welcome_message, accent_color, position, identity_required, origins: allowed_origins.join("\n"), questions };
}

/**
 * The part to save. The title goes only when changed (the view shows the chatbot's name while
 * none was set, and sending that back would fix it), and blank sets it back to the name.
 */
function partOf(draft: Draft, shown: Chatbot["widget"]): WidgetPart {
  const { origins, questions, title, ...rest } = draft;
  const part: WidgetPart = { ...rest, allowed_origins: originsOf(origins), starter_questions: questions.map((question) => question.trim()).filter((question) => question !== "") };
  if (title !== shown.title) part.title = title.trim() === "" ? null : title;
  return part;
}

/** A count of characters against a limit, in words, and whether it is over. */
function Counter({ text, limit, id }: { text: string; limit: number; id: string }) {
  const length = [...text].length;
  const over = length > limit;
  return (
    <span id={id} class={over ? "counter over" : "counter"} aria-live="polite">
      {length.toLocaleString("en-US")} / {limit.toLocaleString("en-US")} characters{over ? `: ${(length - limit).toLocaleString("en-US")} too many` : ""}
    </span>
  );
}

/** A button that copies a text, and says whether the browser let it. */
function CopyButton({ text, label }: { text: string; label: string }) {
  const [said, setSaid] = useState<string | null>(null);
  return (
    <>
      <button
        type="button"
        onClick={() =>
          navigator.clipboard.writeText(text).then(
            () => setSaid("Copied."),
            () => setSaid("The browser refused the clipboard: select the text and copy it."),
          )
        }
      >
        {label}
      </button>
      <span role="status">{said}</span>
    </>
  );
}

/**
 * A chatbot's Widget section (docs/design.md §14): turn the widget on, the websites that may embed
 * it, its appearance and starter questions, identity verification and its secret (shown once),
 * the snippet to paste, and a live preview. A refusal of the API shows next to the setting it
 * names, with what was typed kept. Only an owner (admin key) changes anything: an agent's key
 * gets 403 on these routes, so it sees no control that would fail.
 */
export function WidgetSection({ chatbot, onChange }: { chatbot: Chatbot; onChange: (updated: Chatbot) => void }) {
  const owner = role.value === "admin";
  const widget = chatbot.widget;
  const [draft, setDraft] = useState(() => draftOf(widget));
  const save = useAction();
  const secret = useAction();
  const [saved, setSaved] = useState<string | null>(null);
  const [issued, setIssued] = useState<string | null>(null);
  const [frame, setFrame] = useState<"checking" | "served" | "missing">("checking");
  const failed = widgetFieldOfError(save.error);

  // The preview: the frame page exists only while the widget is on (and on a server that has it).
  useEffect(() => {
    let current = true;
    setFrame("checking");
    if (!widget.enabled) return;
    void frameServed(chatbot.id).then((served) => current && setFrame(served ? "served" : "missing"));
    return () => {
      current = false;
    };
  }, [chatbot.id, widget.enabled, chatbot.updated_at]);

  const set = <K extends keyof Draft>(name: K, value: Draft[K]) => setDraft((current) => ({ ...current, [name]: value }));
  // A refused item of a list is named by the API by its index: say which one, in the server's words.
  const item = widgetItemOfError(save.error);
  const itemValue = item === null ? undefined : failed === "allowed_origins" ? originsOf(draft.origins)[item] : failed === "starter_questions" ? partOf(draft, widget).starter_questions?.[item] : undefined;
  const errorFor = (field: WidgetField) =>
    failed === field ? <ErrorText error={itemValue === undefined ? save.error : `“${itemValue}” was refused. ${save.error ?? ""}`} /> : null;
  const invalid = (field: WidgetField, over = false) => ({ "aria-invalid": failed === field || over });
  const snippet = snippetOf(location.origin, chatbot.id);

  async function submit() {
    setSaved(null);
    const updated = await save.run(() => updateWidget(chatbot.id, partOf(draft, widget)));
    if (!updated) return;
    onChange(updated);
    setDraft(draftOf(updated.widget));
    setSaved(updated.widget.enabled ? "Saved: the widget is on." : "Saved: the widget is off.");
  }

  async function makeSecret() {
    const made = await secret.run(() => makeWidgetSecret(chatbot.id));
    if (!made) return;
    setIssued(made.secret);
    onChange({ ...chatbot, widget: { ...chatbot.widget, has_secret: true } });
  }

  return (
    <section class="card widget" aria-labelledby="widget-title">
      <header class="screen-header">
        <h2 id="widget-title">Widget</h2>
        {widget.enabled ? <span class="badge active">Widget on</span> : <span class="badge">Widget off</span>}
      </header>
      <p class="hint">A chat window for your website: paste the snippet below into its pages. Nothing about this chatbot is public until the widget is on.</p>
      <form
        class="stacked"
        aria-label="Widget settings"
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <fieldset class="plain-fieldset" disabled={!owner}>
          <div class="stacked">
            <div class="field">
              <label class="switch">
                <input type="checkbox" name="enabled" checked={draft.enabled} onChange={(event) => set("enabled", event.currentTarget.checked)} />
                Turn the widget on
              </label>
              {errorFor("enabled")}
            </div>
            <div class="field">
              <label>
                Allowed origins
                <textarea
                  name="allowed_origins"
                  rows={3}
                  value={draft.origins}
                  {...invalid("allowed_origins")}
                  aria-describedby="widget-origins-note"
                  placeholder="https://shop.example"
                  onInput={(event) => set("origins", event.currentTarget.value)}
                />
              </label>
              <div id="widget-origins-note">
                <span class="hint">
                  The websites that may embed the widget, one per line, each exactly <code>scheme://host[:port]</code> (no path, no wildcard), up to {WIDGET_LIMITS.allowed_origins}.
                </span>
                {errorFor("allowed_origins")}
              </div>
            </div>
            <div class="row">
              <div class="field">
                <label>
                  Title
                  <input name="title" value={draft.title} placeholder={chatbot.name} {...invalid("title", [...draft.title].length > WIDGET_LIMITS.title)} aria-describedby="widget-title-note" onInput={(event) => set("title", event.currentTarget.value)} />
                </label>
                <div id="widget-title-note">
                  <span class="hint">Blank: the chatbot's name. </span>
                  <Counter text={draft.title} limit={WIDGET_LIMITS.title} id="widget-title-count" />
                  {errorFor("title")}
                </div>
              </div>
              <div class="field color">
                <label>
                  Accent colour
                  <input type="color" name="accent_color" value={draft.accent_color} {...invalid("accent_color")} onInput={(event) => set("accent_color", event.currentTarget.value)} />
                </label>
                {errorFor("accent_color")}
              </div>
              <fieldset class="field side">
                <legend>Side of the page</legend>
                {(["right", "left"] as const).map((side) => (
                  <label key={side} class="switch">
                    <input type="radio" name="position" value={side} checked={draft.position === side} onChange={() => set("position", side)} />
                    {side === "right" ? "Right" : "Left"}
                  </label>
                ))}
                {errorFor("position")}
              </fieldset>
            </div>
            <div class="field">
              <label>
                Welcome message
                <textarea
                  name="welcome_message"
                  rows={2}
                  value={draft.welcome_message}
                  {...invalid("welcome_message", [...draft.welcome_message].length > WIDGET_LIMITS.welcome_message)}
                  aria-describedby="widget-welcome-note"
                  onInput={(event) => set("welcome_message", event.currentTarget.value)}
                />
              </label>
              <div id="widget-welcome-note">
                <Counter text={draft.welcome_message} limit={WIDGET_LIMITS.welcome_message} id="widget-welcome-count" />
                {errorFor("welcome_message")}
              </div>
            </div>
            <fieldset class="field questions">
              <legend>Starter questions</legend>
              <span class="hint">Up to {WIDGET_LIMITS.starter_questions}, shown as buttons a visitor can press to ask them. Leave a box empty for none.</span>
              {draft.questions.map((question, index) => (
                <input
                  key={index}
                  name={`starter_question_${index + 1}`}
                  aria-label={`Starter question ${index + 1}`}
                  value={question}
                  {...invalid("starter_questions", [...question].length > WIDGET_LIMITS.starter_question)}
                  onInput={(event) => {
                    const value = event.currentTarget.value;
                    setDraft((current) => ({ ...current, questions: current.questions.map((old, at) => (at === index ? value : old)) }));
                  }}
                />
              ))}
              {errorFor("starter_questions")}
            </fieldset>
            <div class="field">
              <label class="switch">
                <input type="checkbox" name="identity_required" checked={draft.identity_required} onChange={(event) => set("identity_required", event.currentTarget.checked)} />
                Only visitors with a verified identity may chat
              </label>
              <span class="hint">
                Your site then adds <code>data-user-id</code> and <code>data-user-hash</code> to the snippet: the lowercase hex HMAC-SHA256 of the user's id under the identity secret, computed on your
                server.
              </span>
              {errorFor("identity_required")}
            </div>
          </div>
        </fieldset>
        {owner ? (
          <div class="actions">
            <button type="submit" disabled={save.busy}>
              Save widget settings
            </button>
            <span role="status" class="saved">
              {saved}
            </span>
          </div>
        ) : null}
        {save.error && failed === null ? <ErrorText error={save.error} /> : null}
      </form>

      <h3>Identity secret</h3>
      <p class="muted">{widget.has_secret ? "A secret is set. Rotating it makes a new one: hashes made with the old one stop working." : "No secret yet: make one to verify signed-in visitors."}</p>
      {owner ? (
        <div class="actions">
          {widget.has_secret ? (
            <ConfirmButton
              label="Rotate the secret"
              question="Make a new secret? Visitors whose hash was made with the old one cannot chat until your site uses the new one."
              confirmLabel="Yes, rotate it"
              disabled={secret.busy}
              onConfirm={() => void makeSecret()}
            />
          ) : (
            <button type="button" disabled={secret.busy} onClick={() => void makeSecret()}>
              Make a secret
            </button>
          )}
        </div>
      ) : null}
      {issued ? <SecretOnce label="The widget's identity secret." secret={issued} onDismiss={() => setIssued(null)} /> : null}
      <ErrorText error={secret.error} />

      <h3>Snippet</h3>
      <p class="muted">Paste it into every page that shows the widget, just before <code>&lt;/body&gt;</code>. It works on the allowed origins once the widget is on.</p>
      <pre class="snippet">
        <code>{snippet}</code>
      </pre>
      <div class="actions">
        <CopyButton text={snippet} label="Copy the snippet" />
      </div>

      <h3>Preview</h3>
      {!widget.enabled ? (
        <p class="muted preview-note">Turn the widget on and save to see it here as a visitor does.</p>
      ) : frame === "served" ? (
        <>
          <p class="hint">The widget as a visitor sees it. Messages sent here are real conversations of this chatbot.</p>
          <iframe key={chatbot.updated_at} class="preview" title="Widget preview" src={`/widget/${chatbot.id}`} />
        </>
      ) : frame === "missing" ? (
        <p class="muted preview-note">This server does not serve the widget's chat page, so there is no preview to show.</p>
      ) : (
        <p class="muted preview-note">Loading the preview…</p>
      )}
    </section>
  );
}
