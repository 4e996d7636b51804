import { useState } from "preact/hooks";
import type { Delivery } from "../api/types.js";
import { ChatbotSelect } from "../chatbots/chatbot-select.js";
import { chatbotName } from "../chatbots/chatbots-data.js";
import { formatTime } from "../ui/format.js";
import { ConfirmButton, EmptyState, ErrorText } from "../ui/notice.js";
import { useAction, useResource } from "../ui/use-resource.js";
import { SecretOnce } from "./secret-once.js";
import { addWebhook, listDeliveries, listWebhooks, removeWebhook, retryDelivery } from "./settings-data.js";
import { TableHead } from "../ui/table-head.js";

/** Webhook subscriptions (add, remove) and their deliveries (status, attempts, retry). */
export function Webhooks() {
  const webhooks = useResource(listWebhooks, "webhooks");
  const [status, setStatus] = useState<Delivery["status"] | "">("");
  const deliveries = useResource(() => listDeliveries(status), `deliveries-${status}`);
  const action = useAction();
  const [url, setUrl] = useState("");
  const [chatbotId, setChatbotId] = useState("");
  const [secret, setSecret] = useState<string | null>(null);
  return (
    <section aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">Webhooks</h1>
      <div class="card">
        <h2>Add a webhook</h2>
        <form
          class="inline"
          onSubmit={(event) => {
            event.preventDefault();
            void action.run(() => addWebhook(url.trim(), chatbotId)).then((created) => {
              if (!created) return;
              setSecret(created.secret);
              setUrl("");
              void webhooks.reload();
            });
          }}
        >
          <label class="grow">
            URL
            <input name="webhook-url" type="url" required value={url} placeholder="https://example.com/parley-events" onInput={(event) => setUrl(event.currentTarget.value)} />
          </label>
          <ChatbotSelect label="Chatbot" value={chatbotId} onChange={setChatbotId} />
          <button type="submit" disabled={action.busy}>
            Add webhook
          </button>
        </form>
        {secret ? <SecretOnce label="The webhook's signing secret." secret={secret} onDismiss={() => setSecret(null)} /> : null}
        <ErrorText error={action.error} />
      </div>
      <ErrorText error={webhooks.error} />
      {webhooks.data && webhooks.data.data.length === 0 ? (
        <EmptyState title="No webhooks.">Add one to receive messages, agent replies and takeovers as signed HTTP calls.</EmptyState>
      ) : (
        <ul class="plain" aria-label="Webhooks">
          {(webhooks.data?.data ?? []).map((webhook) => (
            <li key={webhook.id} class="row-item">
              <code>{webhook.url}</code>
              <span class="muted">{webhook.chatbot_id ? chatbotName(webhook.chatbot_id) : "All chatbots"} · {webhook.events && webhook.events.length > 0 ? webhook.events.join(", ") : "all events"} · since {formatTime(webhook.created_at)}</span>
              <ConfirmButton label="Remove" accessibleLabel={`Remove the webhook to ${webhook.url}`} question={`Remove the webhook to ${webhook.url}?`} confirmLabel="Yes, remove it" onConfirm={() => void action.run(() => removeWebhook(webhook.id)).then(() => webhooks.reload())} />
            </li>
          ))}
        </ul>
      )}
      <header class="screen-header">
        <h2>Deliveries</h2>
        <div class="filters">
          <label>
            Status
            <select value={status} onChange={(event) => setStatus(event.currentTarget.value as Delivery["status"] | "")}>
              <option value="">All</option>
              <option value="pending">Pending</option>
              <option value="delivered">Delivered</option>
              <option value="failed">Failed</option>
            </select>
          </label>
          <button type="button" onClick={() => void deliveries.reload()}>
            Refresh
          </button>
        </div>
      </header>
      <ErrorText error={deliveries.error} />
      {deliveries.data && deliveries.data.data.length === 0 ? (
        <EmptyState title="No deliveries.">Deliveries appear here once a subscribed event happens.</EmptyState>
      ) : (
        <table class="list">
          <TableHead columns={["Event", "Status", "Attempts", "Last answer", "Next attempt", "Created"]} actions />
          <tbody>
            {(deliveries.data?.data ?? []).map((delivery) => (
              <tr key={delivery.id}>
                <td data-label="Event">{delivery.event_type}</td>
                <td data-label="Status">
                  <span class={`badge ${delivery.status}`}>{delivery.status}</span>
                </td>
                <td data-label="Attempts">{delivery.attempts}</td>
                <td data-label="Last answer">{delivery.last_status ?? "—"}</td>
                <td data-label="Next attempt">{formatTime(delivery.next_attempt_at)}</td>
                <td data-label="Created">{formatTime(delivery.created_at)}</td>
                <td class="row-actions">
                  <button type="button" class="secondary" aria-label={`Retry delivery of ${delivery.event_type}`} onClick={() => void action.run(() => retryDelivery(delivery.id)).then(() => deliveries.reload())}>
                    Retry
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
