/** What is wrong with a database Parley cannot use; the message says what to do. */
export class PostgresSetupError extends Error {
  override readonly name = "PostgresSetupError";
}
