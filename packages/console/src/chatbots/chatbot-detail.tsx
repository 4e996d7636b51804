import { useState } from "preact/hooks";
import { href, navigate } from "../router.js";
import { formatTime, plural } from "../ui/format.js";
import { ConfirmButton, ErrorText } from "../ui/notice.js";
import { lazyComponent } from "../ui/lazy.js";
import { useAction, useResource } from "../ui/use-resource.js";
import { ChatbotForm, fieldOfError } from "./chatbot-form.js";
import { deleteChatbot, getChatbot, loadChatbots, updateChatbot } from "./chatbots-data.js";

/** The Widget section, a chunk of its own: it loads when a chatbot's page opens, not with the console. */
const WidgetSection = lazyComponent(() => import("./widget-section.js").then((module) => module.WidgetSection), "Loading the widget settings…");

/** One chatbot: edit its fields, pause or resume it, delete it, and set up its widget. */
export function ChatbotDetail({ id }: { id: string }) {
  const chatbot = useResource(() => getChatbot(id), id);
  const action = useAction();
  const [saved, setSaved] = useState<string | null>(null);
  const data = chatbot.data;

  async function change(fields: Parameters<typeof updateChatbot>[1], message: string) {
    setSaved(null);
    const updated = await action.run(() => updateChatbot(id, fields));
    if (!updated) return;
    chatbot.setData(() => updated);
    setSaved(message);
    void loadChatbots().catch(() => undefined);
  }

  return (
    <section aria-labelledby="chatbot-title">
      <p>
        <a href={href("/chatbots")}>← All chatbots</a>
      </p>
      <ErrorText error={chatbot.error} />
      {data ? (
        <>
          <header class="screen-header">
            <h1 id="chatbot-title">{data.name}</h1>
            <div class="actions">
              {data.is_active ? <span class="badge active">Active</span> : <span class="badge paused">Paused</span>}
              {data.is_active ? (
                <button type="button" disabled={action.busy} onClick={() => void change({ is_active: false }, "Paused: chat now answers 403 until you resume it.")}>
                  Pause
                </button>
              ) : (
                <button type="button" disabled={action.busy} onClick={() => void change({ is_active: true }, "Resumed: the chatbot answers again.")}>
                  Resume
                </button>
              )}
              <a class="button" href={href(`/chatbots/${id}/knowledge`)}>
                Knowledge ({plural(data.documents, "document")})
              </a>
              <ConfirmButton
                label="Delete"
                question={`Delete ${data.name}? Its chat answers 404 from now on.`}
                confirmLabel="Yes, delete it"
                disabled={action.busy}
                onConfirm={() =>
                  void action.run(() => deleteChatbot(id).then(() => true)).then(async (deleted) => {
                    if (!deleted) return;
                    await loadChatbots().catch(() => undefined);
                    navigate("/chatbots");
                  })
                }
              />
            </div>
          </header>
          <p class="muted">
            Slug <code>{data.slug}</code> · id <code>{data.id}</code> · created {formatTime(data.created_at)} · updated {formatTime(data.updated_at)}
          </p>
          <p role="status" class="saved">
            {saved}
          </p>
          {/* A refusal of one field shows under that field in the form; the others here, by the actions. */}
          <ErrorText error={fieldOfError(action.error) ? null : action.error} />
          <div class="card">
            <ChatbotForm
              // Fresh from the server after a save of these fields, not of the widget's (typing there keeps this form's edits).
              key={[data.name, data.provider, data.model, data.system_prompt, data.fallback_message].join("\u0000")}
              initial={{ name: data.name, provider: data.provider, model: data.model, system_prompt: data.system_prompt, fallback_message: data.fallback_message }}
              submitLabel="Save changes"
              busy={action.busy}
              error={fieldOfError(action.error) ? action.error : null}
              onSubmit={(fields) => void change(fields, "Saved.")}
            />
          </div>
          <WidgetSection chatbot={data} onChange={(updated) => chatbot.setData(() => updated)} />
        </>
      ) : null}
    </section>
  );
}
