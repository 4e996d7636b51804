import { useState } from "preact/hooks";
import type { Ingestion } from "../api/types.js";
import { chatbotName } from "../chatbots/chatbots-data.js";
import { href } from "../router.js";
import { formatBytes, formatTime } from "../ui/format.js";
import { ConfirmButton, EmptyState, ErrorText } from "../ui/notice.js";
import { useAction, useResource } from "../ui/use-resource.js";
import { IngestionProgress, useIngestionPolling } from "./ingestion-progress.js";
import { addUrl, deleteDocument, listDocuments, uploadFiles, type Crawl } from "./knowledge-data.js";
import { TryQuestion } from "./try-question.js";
import { UploadZone } from "./upload-zone.js";
import { TableHead } from "../ui/table-head.js";

/** A chatbot's knowledge: documents, uploads, URLs and sitemaps, progress, and a search to try. */
export function Knowledge({ chatbotId }: { chatbotId: string }) {
  const documents = useResource(() => listDocuments(chatbotId), chatbotId);
  const action = useAction();
  const upload = useAction();
  const addAddress = useAction();
  const [ingestions, setIngestions] = useState<Ingestion[]>([]);
  const [url, setUrl] = useState("");
  const [crawl, setCrawl] = useState<Crawl>("page");

  const track = (ingestion: Ingestion | undefined) => ingestion && setIngestions((current) => [ingestion, ...current.filter((item) => item.id !== ingestion.id)]);
  useIngestionPolling(ingestions, track, () => void documents.reload());

  return (
    <section aria-labelledby="knowledge-title">
      <p>
        <a href={href(`/chatbots/${chatbotId}`)}>← {chatbotName(chatbotId)}</a>
      </p>
      <h1 id="knowledge-title">Knowledge of {chatbotName(chatbotId)}</h1>
      <div class="card">
        <h2>Add knowledge</h2>
        <UploadZone busy={upload.busy} onFiles={(files) => void upload.run(() => uploadFiles(chatbotId, files)).then(track)} />
        <ErrorText error={upload.error} />
        <form
          class="inline"
          onSubmit={(event) => {
            event.preventDefault();
            // The address stays in the field until its ingestion is queued: a refusal keeps it, to correct.
            if (url.trim()) void addAddress.run(() => addUrl(chatbotId, url.trim(), crawl)).then((ingestion) => (track(ingestion), ingestion && setUrl("")));
          }}
        >
          <label class="grow">
            Web address
            <input
              name="url"
              type="url"
              value={url}
              aria-invalid={Boolean(addAddress.error)}
              aria-describedby="url-error"
              placeholder="https://example.com/help"
              onInput={(event) => setUrl(event.currentTarget.value)}
            />
          </label>
          <label>
            Read
            <select value={crawl} onChange={(event) => setCrawl(event.currentTarget.value as Crawl)}>
              <option value="page">This page</option>
              <option value="sitemap">Its sitemap</option>
              <option value="site">The site, by its links</option>
            </select>
          </label>
          <button type="submit" disabled={addAddress.busy}>
            Add
          </button>
        </form>
        <div id="url-error">
          <ErrorText error={addAddress.error} />
        </div>
        {ingestions.length > 0 ? (
          <ul class="ingestions" aria-label="Ingestions" aria-live="polite">
            {ingestions.map((ingestion) => (
              <IngestionProgress key={ingestion.id} ingestion={ingestion} />
            ))}
          </ul>
        ) : null}
      </div>
      <h2>Documents</h2>
      <ErrorText error={documents.error} />
      <ErrorText error={action.error} />
      {documents.data && documents.data.length === 0 ? (
        <EmptyState title="This chatbot has no documents yet.">Drop files above or add a web address; the chatbot answers from them.</EmptyState>
      ) : (
        <table class="list">
          <TableHead columns={["Title", "Source", "Type", "Chunks", "Size", "Updated"]} actions />
          <tbody>
            {(documents.data ?? []).map((document) => (
              <tr key={document.id}>
                <td data-label="Title">{document.title}</td>
                <td data-label="Source" class="source">
                  {document.source}
                </td>
                <td data-label="Type">{document.type}</td>
                <td data-label="Chunks">{document.chunks}</td>
                <td data-label="Size">{formatBytes(document.bytes)}</td>
                <td data-label="Updated">{formatTime(document.updated_at)}</td>
                <td class="row-actions">
                  <ConfirmButton
                    label="Delete"
                    accessibleLabel={`Delete ${document.title}`}
                    question={`Delete ${document.title}?`}
                    confirmLabel="Yes, delete it"
                    onConfirm={() => void action.run(() => deleteDocument(chatbotId, document.id)).then(() => documents.reload())}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <TryQuestion chatbotId={chatbotId} />
    </section>
  );
}
