// Preloaded into a `parley serve` child (NODE_OPTIONS=--import=…) by the access log test. It says
// "exiting" on stderr when the process starts to exit (before the server's own exit handlers, which
// registered later), so the test can hold its reading of stdout until then; and SIGUSR2 makes the
// process crash with an uncaught exception, as a bug would, at a moment the test picks.
import { writeSync } from "node:fs";

process.on("exit", () => writeSync(2, "exiting\n"));
process.on("SIGUSR2", () => {
  throw new Error("crashing on purpose: the access log test sent SIGUSR2");
});
