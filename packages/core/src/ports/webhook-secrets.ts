/**
 * The signing secrets of webhook subscriptions, kept out of storage: an implementation derives
 * each subscription's secret from a master key the database never holds, so a copy of the
 * database alone cannot forge deliveries. The core does no file I/O; whoever runs it supplies
 * the key (the server: `PARLEY_SECRET_KEY` or a key file beside the database).
 */
export interface WebhookSecrets {
  /** Fingerprint of the master key (public, not the key): stored with each subscription. */
  keyId(): string;
  /** The subscription's signing secret, `whsec_<base64>`; the same for the same id and key. */
  secretFor(subscriptionId: string): string;
}
