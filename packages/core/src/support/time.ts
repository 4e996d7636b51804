import type { Clock } from "../ports/clock.js";

const MICROS_PER_MS = 1000;

/** The system clock with microsecond resolution. */
export const systemClock: Clock = {
  now: () => Math.floor((performance.timeOrigin + performance.now()) * MICROS_PER_MS),
};

/** ISO 8601 with six fractional digits and `+00:00`, e.g. `2026-11-21T10:41:42.123456+00:00`. */
export function formatTimestamp(micros: number): string {
  const millis = Math.floor(micros / MICROS_PER_MS);
  const fraction = String(micros - millis * MICROS_PER_MS).padStart(3, "0");
  const iso = new Date(millis).toISOString(); // YYYY-MM-DDTHH:MM:SS.mmmZ
  return `${iso.slice(0, 23)}${fraction}+00:00`;
}

/** The UTC calendar month of a time, `YYYY-MM`. */
export function monthOf(micros: number): string {
  return new Date(Math.floor(micros / MICROS_PER_MS)).toISOString().slice(0, 7);
}

/** Microseconds of the first instant of the next UTC calendar month. */
export function startOfNextMonth(micros: number): number {
  const date = new Date(Math.floor(micros / MICROS_PER_MS));
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1) * MICROS_PER_MS;
}

/** Converts milliseconds to microseconds. */
export const millisToMicros = (millis: number) => millis * MICROS_PER_MS;

/** Converts microseconds to whole milliseconds. */
export const microsToMillis = (micros: number) => Math.floor(micros / MICROS_PER_MS);
