/** Limits on what one document may ask of its reader (docs/configuration.md, "Documents"). */
export interface ReadLimits {
  /** PDFs with more pages are refused before any page is read (default 2,000). */
  maxPdfPages: number;
  /** HTML larger than this is refused before it is parsed, in bytes (default 5 MiB). */
  maxHtmlBytes: number;
  /** What a DOCX may really unpack to, counted while unpacking, in bytes (default 64 MiB). */
  maxDocxUnpackedBytes: number;
}

/** The defaults: a 2,000-page manual or a 5 MiB page reads; a document built to exhaust the reader does not. */
export const DEFAULT_READ_LIMITS: ReadLimits = {
  maxPdfPages: 2_000,
  maxHtmlBytes: 5 * 1024 * 1024,
  maxDocxUnpackedBytes: 64 * 1024 * 1024,
};
