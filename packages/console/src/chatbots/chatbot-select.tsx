import { chatbots } from "./chatbots-data.js";

/** A labelled choice of one of the user's chatbots, or all of them (the value ""). */
export function ChatbotSelect({ label, value, onChange }: { label: string; value: string; onChange: (chatbotId: string) => void }) {
  return (
    <label>
      {label}
      <select value={value} onChange={(event) => onChange(event.currentTarget.value)}>
        <option value="">All chatbots</option>
        {chatbots.value.map((chatbot) => (
          <option key={chatbot.id} value={chatbot.id}>
            {chatbot.name}
          </option>
        ))}
      </select>
    </label>
  );
}
