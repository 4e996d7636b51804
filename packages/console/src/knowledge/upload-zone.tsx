import { useRef, useState } from "preact/hooks";

/** A drop zone for files, with a keyboard-reachable file picker beside it. */
export function UploadZone({ onFiles, busy }: { onFiles: (files: File[]) => void; busy: boolean }) {
  const [over, setOver] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  return (
    <div
      class={`drop-zone${over ? " over" : ""}`}
      onDragOver={(event) => {
        event.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(event) => {
        event.preventDefault();
        setOver(false);
        const files = [...(event.dataTransfer?.files ?? [])];
        if (files.length > 0) onFiles(files);
      }}
    >
      <p>Drop PDF, DOCX, HTML, Markdown or text files here, or</p>
      <label class="button">
        Choose files…
        <input
          ref={input}
          type="file"
          multiple
          class="visually-hidden"
          disabled={busy}
          accept=".pdf,.docx,.html,.htm,.md,.markdown,.txt"
          onChange={(event) => {
            const files = [...(event.currentTarget.files ?? [])];
            if (files.length > 0) onFiles(files);
            if (input.current) input.current.value = "";
          }}
        />
      </label>
    </div>
  );
}
