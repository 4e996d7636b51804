// Linux's view of the document reader's processes, through /proc, for the tests that look at
// them from outside (their priority, their end when their server is killed).
import { readdirSync, readFileSync } from "node:fs";

/**
 * The fields of `/proc/<path>/stat` after the command name, from the state (field 3) on, or
 * null once the process or thread is gone; the name (field 2) may hold spaces, so they are
 * counted from its ")".
 */
export function statFields(path: string): string[] | null {
  try {
    return readFileSync(`/proc/${path}/stat`, "utf8").split(") ")[1]!.split(" ");
  } catch {
    return null;
  }
}

/** This process's child processes that run the document reader's entry (from the sources, tsx's esbuild service is a child too). */
export function readerProcesses(): string[] {
  const children = readdirSync("/proc/self/task").flatMap((thread) => readFileSync(`/proc/self/task/${thread}/children`, "utf8").trim().split(" ").filter(Boolean));
  return children.filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("read-document-worker");
    } catch {
      return false;
    }
  });
}
