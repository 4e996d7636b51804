import { isParleyError } from "@parley/core";
import { parseArgs } from "node:util";
import { ADMIN_COMMANDS, checkPositionals } from "./cli/admin-commands.js";
import { BACKUP_COMMAND } from "./cli/backup-command.js";
import { UsageError, type Command, type CommandIo } from "./cli/command.js";
import { RUNTIME_COMMANDS } from "./cli/runtime-commands.js";
import { MIGRATE_COMMAND } from "./cli/migrate-command.js";
import { WEBHOOK_COMMANDS } from "./cli/webhook-commands.js";
import { WIDGET_COMMANDS } from "./cli/widget-commands.js";
import { ConfigError, describeDatabase, loadConfig, type ServerConfig } from "./runtime/config.js";
import { openRuntime } from "./runtime/open-runtime.js";

/** Every `parley` command; the help and the tests are derived from it. */
export const COMMANDS: Command[] = [...ADMIN_COMMANDS, ...WEBHOOK_COMMANDS, ...WIDGET_COMMANDS, ...RUNTIME_COMMANDS, BACKUP_COMMAND, MIGRATE_COMMAND];

const GLOBAL_HELP = `parley — self-hostable retrieval-augmented chatbot messaging

Usage: parley <command> [options]   (every command takes --db PATH; default $PARLEY_DB, else ./parley.db;
                                     PARLEY_DATABASE_URL=postgres://... uses PostgreSQL instead)

${COMMANDS.map((command) => `  ${command.usage}\n      ${command.summary}`).join("\n")}

Each command prints one JSON document on stdout; on failure it prints one line on stderr and exits non-zero.
Run "parley <command> --help" for one command.`;

/** Finds the command named by the leading words of argv (one or two words). */
function findCommand(argv: string[]): { command: Command; rest: string[] } | undefined {
  for (const words of [2, 1]) {
    const name = argv.slice(0, words).join(" ");
    const command = COMMANDS.find((candidate) => candidate.name === name);
    if (command) return { command, rest: argv.slice(words) };
  }
  return undefined;
}

/** Runs the `parley` CLI; resolves to the exit code. */
export async function main(argv: string[], io: CommandIo = { stdout: process.stdout, stderr: process.stderr, env: process.env }): Promise<number> {
  if (argv.length === 0 || argv[0] === "--help" || argv[0] === "-h" || argv[0] === "help") {
    io.stdout.write(`${GLOBAL_HELP}\n`);
    return argv.length === 0 ? 2 : 0;
  }
  const found = findCommand(argv);
  if (!found) {
    io.stderr.write(`parley: unknown command "${argv.slice(0, 2).join(" ")}". Run "parley --help" for the list.\n`);
    return 2;
  }
  const { command, rest } = found;
  let config: ServerConfig | undefined;
  try {
    const { values, positionals } = parseArgs({
      args: rest,
      options: { ...command.options, db: { type: "string" }, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
    if (values.help) {
      io.stdout.write(`Usage: ${command.usage}\n\n${command.summary}\n`);
      return 0;
    }
    checkPositionals(command, positionals);
    config = loadConfig(io.env, typeof values.db === "string" ? { databasePath: values.db } : {});
    const runtime = await openRuntime(config);
    try {
      const result = await command.run({ values, positionals }, { runtime, config, io });
      if (command.name !== "serve") io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      return command.exitCode?.(result) ?? 0;
    } finally {
      if (command.name !== "serve") await runtime.close();
    }
  } catch (error) {
    // Something not found may be in another database than the one meant (a mistyped PARLEY_DB or --db): name it.
    const line = config !== undefined && isParleyError(error, "not_found") ? `${reason(error).replace(/\.$/, "")} (database ${describeDatabase(config)}).` : reason(error);
    io.stderr.write(`parley ${command.name}: ${line}\n`);
    return error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS") ? 2 : 1;
  }
}

/** One line that says what went wrong, without a stack. */
function reason(error: unknown): string {
  if (isParleyError(error)) return error.detail;
  if (error instanceof UsageError || error instanceof ConfigError) return error.message;
  if (error instanceof Error) return error.message.split("\n")[0]!;
  return String(error);
}
