import { useState } from "preact/hooks";
import type { Provider } from "../api/types.js";
import type { ChatbotFields } from "./chatbots-data.js";

const PROVIDERS: { value: Provider; label: string }[] = [
  { value: "openai", label: "OpenAI" },
  { value: "anthropic", label: "Anthropic" },
  { value: "ollama", label: "Ollama (local)" },
];

/** The fields of a chatbot, for creating one or editing it. */
export function ChatbotForm({ initial, submitLabel, busy, onSubmit }: { initial: ChatbotFields; submitLabel: string; busy: boolean; onSubmit: (fields: ChatbotFields) => void }) {
  const [fields, setFields] = useState(initial);
  const set = (name: keyof ChatbotFields) => (event: { currentTarget: { value: string } }) => setFields({ ...fields, [name]: event.currentTarget.value });
  return (
    <form
      class="stacked"
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit(fields);
      }}
    >
      <label>
        Name
        <input name="name" value={fields.name} onInput={set("name")} required />
      </label>
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
        <label>
          Model
          <input name="model" value={fields.model} onInput={set("model")} required />
        </label>
      </div>
      <label>
        System prompt
        <textarea name="system_prompt" rows={5} value={fields.system_prompt} onInput={set("system_prompt")} />
      </label>
      <label>
        Fallback message
        <textarea name="fallback_message" rows={2} value={fields.fallback_message} onInput={set("fallback_message")} />
      </label>
      <button type="submit" disabled={busy}>
        {submitLabel}
      </button>
    </form>
  );
}
