import { cpus, totalmem } from "node:os";

/** The machine a figure was measured on, printed with every report. */
export function machineDescription(): string {
  const processors = cpus();
  return (
    `machine: ${processors[0]?.model.trim() ?? "unknown CPU"}, ${processors.length} cores, ` +
    `${Math.round(totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}, ${process.platform}-${process.arch}`
  );
}
