import { chatbotName } from "../chatbots/chatbots-data.js";
import { formatTime } from "../ui/format.js";
import { EmptyState, ErrorText } from "../ui/notice.js";
import { useResource } from "../ui/use-resource.js";
import { getUsage } from "./settings-data.js";
import { UsageChart } from "./usage-chart.js";
import { TableHead } from "../ui/table-head.js";

/** This month's usage: a chart of messages per day against the plan's limit, and figures per chatbot. */
export function UsageScreen() {
  const usage = useResource(getUsage, "usage");
  const data = usage.data;
  const ratings = new Map(data?.feedback_by_chatbot.map((row) => [row.chatbot_id, row]));
  return (
    <section aria-labelledby="usage-title">
      <h1 id="usage-title">Usage this month</h1>
      <ErrorText error={usage.error} />
      {data ? (
        <>
          <p class="summary">
            <strong>{data.used.toLocaleString()}</strong> of {data.limit.toLocaleString()} messages used on the <strong>{data.plan}</strong> plan ({data.remaining.toLocaleString()} left); the count resets {formatTime(data.resets_at)}.
          </p>
          <meter min={0} max={data.limit} value={data.used} high={data.limit * 0.8} aria-label="Share of the monthly limit used" />
          <UsageChart usage={data} />
          <h2>By chatbot</h2>
          {data.by_chatbot.length === 0 ? (
            <EmptyState title="No messages this month yet.">Each visitor message counts toward the plan's monthly limit.</EmptyState>
          ) : (
            <table class="list">
              <TableHead columns={["Chatbot", "Messages", "Share of the month", "Helpful", "Not helpful"]} />
              <tbody>
                {data.by_chatbot.map((row) => (
                  <tr key={row.chatbot_id}>
                    <td data-label="Chatbot">{chatbotName(row.chatbot_id)}</td>
                    <td data-label="Messages">{row.messages.toLocaleString("en-US")}</td>
                    <td data-label="Share of the month">{data.used > 0 ? `${Math.round((row.messages / data.used) * 100)} %` : "—"}</td>
                    <td data-label="Helpful">{ratings.get(row.chatbot_id)?.up ?? 0}</td>
                    <td data-label="Not helpful">{ratings.get(row.chatbot_id)?.down ?? 0}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      ) : null}
    </section>
  );
}
