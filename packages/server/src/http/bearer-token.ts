/** The token of an `Authorization: Bearer <token>` header; undefined for any other shape. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer +(\S+) *$/i.exec(header ?? "");
  return match?.[1];
}
