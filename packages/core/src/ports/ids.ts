/** The source of identifiers and secrets. Injected so tests control it. */
export interface Ids {
  /** A new lower-case UUID v4. */
  uuid(): string;
  /** `byteLength` cryptographically random bytes, base64url without padding. */
  secret(byteLength: number): string;
}
