import { isParleyError, serviceUnavailable } from "@parley/core";

// SQLSTATE classes and codes that mean the connection or the server went away, not that the
// statement was wrong: class 08 (connection exception), 57P01–57P03 (the server shutting down,
// crashed, or not accepting connections yet), 53300 (too many connections).
const SERVER_GONE = new Set(["57P01", "57P02", "57P03", "53300"]);
const SOCKET_GONE = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENOTFOUND"]);
// "Query read timeout": no answer within the client's timeout (createPool), the server hung.
const CLIENT_GONE = /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed|Query read timeout/i;

/** Whether `error` says PostgreSQL could not be reached or dropped the connection (retrying later can succeed). */
export function isConnectionFailure(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === "string" && (code.startsWith("08") || SERVER_GONE.has(code) || SOCKET_GONE.has(code))) return true;
  return typeof message === "string" && CLIENT_GONE.test(message);
}

/**
 * The core's `unavailable` error (503 at the HTTP edge) for a lost database connection; any other
 * error as it was. Nothing was committed by a statement or transaction that failed this way.
 */
export function toUnavailable(error: unknown): unknown {
  return !isParleyError(error) && isConnectionFailure(error) ? serviceUnavailable("The database", error) : error;
}
