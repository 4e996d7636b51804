import type { ParseArgsConfig } from "node:util";
import type { ServerConfig } from "../runtime/config.js";
import type { ParleyRuntime } from "../runtime/open-parley.js";

/** Where a command writes, and what it reads from its surroundings. */
export interface CommandIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: Record<string, string | undefined>;
}

/** The parsed flags and positionals of one command. */
export interface CommandInput {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/** One `parley` command: its usage, its flags, and what it does with an open runtime. */
export interface Command {
  /** e.g. `key create`. */
  name: string;
  usage: string;
  summary: string;
  options: NonNullable<ParseArgsConfig["options"]>;
  /** How many positionals it takes (after the command's own words). */
  positionals: { min: number; max: number };
  /** The exit code for a result that was printed (default 0), e.g. 1 when every document failed. */
  exitCode?: (result: unknown) => number;
  /** Returns the JSON document to print. `serve` never returns until stopped. */
  run(input: CommandInput, context: { runtime: ParleyRuntime; config: ServerConfig; io: CommandIo }): Promise<unknown>;
}

/** A usage mistake: printed as one line, exit code 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** The value of a required string flag. */
export function required(input: CommandInput, flag: string): string {
  const value = input.values[flag];
  if (typeof value !== "string" || value.trim() === "") throw new UsageError(`--${flag} is required.`);
  return value;
}

/** The value of an optional string flag. */
export function optional(input: CommandInput, flag: string): string | undefined {
  const value = input.values[flag];
  return typeof value === "string" ? value : undefined;
}

/** A flag that must be a whole number of 0 or more. */
export function wholeNumber(text: string, flag: string): number {
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text))) throw new UsageError(`--${flag} must be a whole number of 0 or more (got "${text}").`);
  return Number(text);
}
