import { useState } from "preact/hooks";
import { href, navigate } from "../router.js";
import { formatTime, plural } from "../ui/format.js";
import { EmptyState, ErrorText } from "../ui/notice.js";
import { useAction, useResource } from "../ui/use-resource.js";
import { ChatbotForm } from "./chatbot-form.js";
import { createChatbot, loadChatbots } from "./chatbots-data.js";
import { TableHead } from "../ui/table-head.js";

const NEW_CHATBOT = { name: "", provider: "openai", model: "gpt-4o-mini", system_prompt: "", fallback_message: "" } as const;

/** The chatbots: active or paused, with their knowledge, and a form to create one. */
export function Chatbots() {
  const list = useResource(loadChatbots, "chatbots");
  const action = useAction();
  const [creating, setCreating] = useState(false);
  return (
    <section aria-labelledby="chatbots-title">
      <header class="screen-header">
        <h1 id="chatbots-title">Chatbots</h1>
        {creating ? null : (
          <button type="button" onClick={() => setCreating(true)}>
            New chatbot
          </button>
        )}
      </header>
      {creating ? (
        <div class="card">
          <h2>New chatbot</h2>
          <ChatbotForm
            initial={{ ...NEW_CHATBOT }}
            submitLabel="Create chatbot"
            busy={action.busy}
            error={action.error}
            onSubmit={(fields) =>
              void action.run(() => createChatbot(fields)).then((created) => {
                if (created) navigate(`/chatbots/${created.id}`);
              })
            }
          />
          <button type="button" class="link" onClick={() => setCreating(false)}>
            Cancel
          </button>
        </div>
      ) : null}
      <ErrorText error={list.error} />
      {list.data && list.data.length === 0 ? (
        <EmptyState title="No chatbots yet.">Create one with “New chatbot”, then add documents to its knowledge.</EmptyState>
      ) : (
        <table class="list">
          <TableHead columns={["Name", "State", "Provider and model", "Knowledge", "Created"]} />
          <tbody>
            {(list.data ?? []).map((chatbot) => (
              <tr key={chatbot.id}>
                <td data-label="Name">
                  <a href={href(`/chatbots/${chatbot.id}`)}>{chatbot.name}</a>
                </td>
                <td data-label="State">{chatbot.is_active ? <span class="badge active">Active</span> : <span class="badge paused">Paused</span>}</td>
                <td data-label="Provider and model">
                  {chatbot.provider} · {chatbot.model}
                </td>
                <td data-label="Knowledge">
                  <a href={href(`/chatbots/${chatbot.id}/knowledge`)} aria-label={`Knowledge of ${chatbot.name}`}>
                    {plural(chatbot.documents, "document")}, {plural(chatbot.chunks, "chunk")}
                  </a>
                </td>
                <td data-label="Created">{formatTime(chatbot.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
