// Child processes of the HTTP benchmark, and what Linux says about them (/proc).
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";

/** A child process and the first line of its output matching a pattern (e.g. a listening URL). */
export interface Child {
  process: ChildProcess;
  /** Everything it wrote on stderr so far (fault log lines, the banner). */
  stderr(): string;
  stop(): Promise<void>;
}

/**
 * Starts `node [nodeArgs] script args` and resolves once one of its output lines matches
 * `ready` (on stdout or stderr), with the first capture group.
 */
export function startChild(options: {
  nodeArgs: string[];
  script: string;
  args?: string[];
  env: Record<string, string | undefined>;
  cwd: string;
  ready: RegExp;
  /** "ignore" sends stdout to /dev/null (the server's access log: reading it would cost the load generator CPU). */
  stdout?: "pipe" | "ignore";
  /** Takes stdout through a pipe chunk by chunk, keeping none of it (the access log, read as a log collector would). */
  onStdout?: (chunk: Buffer) => void;
}): Promise<{ child: Child; match: string }> {
  const { onStdout } = options;
  const child = spawn(process.execPath, [...options.nodeArgs, options.script, ...(options.args ?? [])], {
    cwd: options.cwd,
    env: options.env as NodeJS.ProcessEnv,
    stdio: ["ignore", onStdout === undefined ? (options.stdout ?? "pipe") : "pipe", "pipe"],
  });
  let stderr = "";
  let stdout = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const handle: Child = {
    process: child,
    stderr: () => stderr,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
  return new Promise((resolve, reject) => {
    let settled = false;
    const look = (text: string) => {
      const match = options.ready.exec(text);
      if (match && !settled) {
        settled = true;
        resolve({ child: handle, match: match[1] ?? match[0] });
      }
    };
    child.stdout?.on(
      "data",
      onStdout ??
        ((chunk: Buffer) => {
          stdout += chunk;
          look(stdout);
        }),
    );
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk;
      look(stderr);
    });
    child.once("exit", (code) => {
      if (!settled) reject(new Error(`${options.script} exited with ${String(code)} before it was ready:\n${stderr}`));
    });
  });
}

/** CPU time (user + system) a process has used, in seconds; undefined off Linux. */
export function cpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // Fields 14 and 15 of proc(5) (utime, stime) in clock ticks of 1/100 s.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** Resident memory of a process in MiB: now (VmRSS) and its peak so far (VmHWM); undefined off Linux. */
export function memoryMiB(pid: number | undefined): { rss: number; peak: number } | undefined {
  if (pid === undefined) return undefined;
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
    return { rss: kib("VmRSS") / 1024, peak: kib("VmHWM") / 1024 };
  } catch {
    return undefined;
  }
}
