/** A source that cannot become a document; its message is the per-document `detail` (docs/design.md §12). */
export class DocumentError extends Error {
  constructor(detail: string) {
    super(detail);
    this.name = "DocumentError";
  }
}
