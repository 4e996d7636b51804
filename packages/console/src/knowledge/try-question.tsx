import { useState } from "preact/hooks";
import type { SearchHit } from "../api/types.js";
import { EmptyState, ErrorText } from "../ui/notice.js";
import { useAction } from "../ui/use-resource.js";
import { searchKnowledge } from "./knowledge-data.js";

const rank = (value: number | null) => (value === null ? "—" : `#${value}`);

/** "Try a question": the chunks retrieval would give the model, with their ranks in each arm. */
export function TryQuestion({ chatbotId }: { chatbotId: string }) {
  const [query, setQuery] = useState("");
  const [hits, setHits] = useState<SearchHit[] | null>(null);
  const action = useAction();
  return (
    <div class="card">
      <h2 id="try-title">Try a question</h2>
      <form
        class="inline"
        onSubmit={(event) => {
          event.preventDefault();
          if (query.trim()) void action.run(() => searchKnowledge(chatbotId, query.trim())).then((answer) => answer && setHits(answer.data));
        }}
      >
        <label class="grow">
          Question
          <input name="question" value={query} onInput={(event) => setQuery(event.currentTarget.value)} placeholder="What would a visitor ask?" />
        </label>
        <button type="submit" disabled={action.busy}>
          Search
        </button>
      </form>
      <ErrorText error={action.error} />
      {hits && hits.length === 0 ? <EmptyState title="Retrieval finds nothing for this question.">Add documents that answer it, or ask with other words.</EmptyState> : null}
      {hits && hits.length > 0 ? (
        <ol class="hits" aria-label="Retrieved chunks">
          {hits.map((hit, index) => (
            <li key={`${hit.document_id}-${index}`}>
              <p class="meta">
                <strong>{hit.title || hit.source}</strong> <span class="muted">{hit.source}</span>
              </p>
              <p class="meta muted">
                Score {hit.score.toFixed(4)} · keyword rank {rank(hit.keyword_rank)} · vector rank {rank(hit.vector_rank)}
              </p>
              <p class="content">{hit.text}</p>
            </li>
          ))}
        </ol>
      ) : null}
    </div>
  );
}
