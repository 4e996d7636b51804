import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { main } from "../src/cli.js";
import type { CommandIo } from "../src/cli/command.js";

/** One request a receiver got. */
export interface ReceivedWebhook {
  headers: Record<string, string>;
  body: string;
}

/** A webhook receiver on 127.0.0.1: answers each request with the next status of `script`, then 200. */
export async function startReceiver(...script: number[]) {
  const requests: ReceivedWebhook[] = [];
  const server = createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => (body += chunk));
    request.on("end", () => {
      requests.push({ headers: request.headers as Record<string, string>, body });
      response.writeHead(script.shift() ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/parley-events`,
    requests,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/** Runs the CLI in this process (faster than a child) and returns its exit code, output and JSON. */
export async function runCliHere(args: string[], env: Record<string, string>) {
  let stdout = "";
  let stderr = "";
  const io = {
    stdout: { write: (chunk: string) => ((stdout += chunk), true) },
    stderr: { write: (chunk: string) => ((stderr += chunk), true) },
    env,
  };
  const code = await main(args, io as unknown as CommandIo);
  return { code, stdout, stderr, json: stdout === "" ? undefined : (JSON.parse(stdout) as Record<string, unknown>) };
}
