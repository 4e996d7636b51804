import { useState } from "preact/hooks";
import type { Provider } from "../api/types.js";
import { ErrorText } from "../ui/notice.js";
import type { ChatbotFields } from "./chatbots-data.js";

const PROVIDERS: { value: Provider; label: string }[] = [
  { value: "openai", label: "OpenAI" },
  { value: "anthropic", label: "Anthropic" },
  { value: "ollama", label: "Ollama (local)" },
];

/** The longest texts the API takes for a chatbot, in characters (docs/api.md, chatbots). */
export const CHATBOT_TEXT_LIMITS = { name: 200, model: 200, system_prompt: 32_000, fallback_message: 4_000 } as const;

type TextField = keyof typeof CHATBOT_TEXT_LIMITS;

/** The field an API refusal names (`system_prompt: must be at most …`), or null for any other error. */
export function fieldOfError(error: string | null): TextField | null {
  const field = /^(name|model|system_prompt|fallback_message):/.exec(error ?? "")?.[1];
  return (field as TextField | undefined) ?? null;
}

/**
 * The fields of a chatbot, for creating one or editing it. A refusal that names a field shows
 * right under that field (any other under the button), the long texts count their characters
 * against the limit, and what was typed stays after a failure.
 */
export function ChatbotForm(props: { initial: ChatbotFields; submitLabel: string; busy: boolean; error: string | null; onSubmit: (fields: ChatbotFields) => void }) {
  const { initial, submitLabel, busy, error, onSubmit } = props;
  const [fields, setFields] = useState(initial);
  const set = (name: keyof ChatbotFields) => (event: { currentTarget: { value: string } }) => setFields({ ...fields, [name]: event.currentTarget.value });
  const failed = fieldOfError(error);
  /** A text field's error and, for the long texts, its character count, under the control. */
  const describe = (name: TextField, counted: boolean) => {
    const length = [...(fields[name] ?? "")].length;
    const limit = CHATBOT_TEXT_LIMITS[name];
    const over = length > limit;
    return {
      control: { name, "aria-invalid": failed === name || over, "aria-describedby": `${name}-note` },
      note: (
        <div id={`${name}-note`}>
          {counted ? (
            <span class={over ? "counter over" : "counter"} aria-live="polite">
              {length.toLocaleString("en-US")} / {limit.toLocaleString("en-US")} characters{over ? `: ${(length - limit).toLocaleString("en-US")} too many` : ""}
            </span>
          ) : null}
          {failed === name ? <ErrorText error={error} /> : null}
        </div>
      ),
    };
  };
  const name = describe("name", false);
  const model = describe("model", false);
  const systemPrompt = describe("system_prompt", true);
  const fallback = describe("fallback_message", true);
  return (
    <form
      class="stacked"
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit(fields);
      }}
    >
      <div class="field">
        <label>
          Name
          <input {...name.control} value={fields.name} onInput={set("name")} required />
        </label>
        {name.note}
      </div>
      <div class="row">
        <label>
          Provider
          <select name="provider" value={fields.provider} onChange={set("provider")}>
            {PROVIDERS.map((provider) => (
              <option key={provider.value} value={provider.value}>
                {provider.label}
              </option>
            ))}
          </select>
        </label>
        <div class="field">
          <label>
            Model
            <input {...model.control} value={fields.model} onInput={set("model")} required />
          </label>
          {model.note}
        </div>
      </div>
      <div class="field">
        <label>
          System prompt
          <textarea {...systemPrompt.control} rows={5} value={fields.system_prompt} onInput={set("system_prompt")} />
        </label>
        {systemPrompt.note}
      </div>
      <div class="field">
        <label>
          Fallback message
          <textarea {...fallback.control} rows={2} value={fields.fallback_message} onInput={set("fallback_message")} />
        </label>
        {fallback.note}
      </div>
      <button type="submit" disabled={busy}>
        {submitLabel}
      </button>
      {error && failed === null ? <ErrorText error={error} /> : null}
    </form>
  );
}
