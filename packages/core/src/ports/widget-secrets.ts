/**
 * The identity secrets of chatbots' widgets, kept out of storage like webhook secrets: an
 * implementation derives a chatbot's secret from a master key the database never holds and the
 * random nonce stored with the chatbot, so a copy of the database alone cannot forge a visitor's
 * identity, and a new nonce (a new secret) makes the old one worthless.
 */
export interface WidgetSecrets {
  /** The chatbot's identity secret for that nonce, `wsec_<base64url>`; the same for the same chatbot, nonce and key. */
  secretFor(chatbotId: string, nonce: string): string;
}
