/**
 * Where an uploaded file waits for its ingestion: in the database every server process shares, so
 * whichever process takes the ingestion up can read it (docs/design.md, "Any PostgreSQL"). An
 * upload is removed once its request has been read, when its ingestion ends, and with its chatbot.
 */
export interface UploadStore {
  /** Stores one uploaded file of a chatbot. */
  save(upload: { id: string; chatbotId: string; name: string; content: Uint8Array; at: number }): Promise<void>;
  /** The file's bytes, or null when it is gone. */
  read(id: string): Promise<Uint8Array | null>;
  /** Removes the given uploads (unknown ids are ignored). */
  remove(ids: readonly string[]): Promise<void>;
}
