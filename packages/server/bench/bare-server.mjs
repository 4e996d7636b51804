// The ceiling for any route on this machine: a bare node:http server answering `[]`.
import { createServer } from "node:http";

const server = createServer((_request, response) => {
  response.writeHead(200, { "content-type": "application/json" });
  response.end("[]");
});
server.listen(0, "127.0.0.1", () => process.stdout.write(`http://127.0.0.1:${server.address().port}\n`));
process.once("SIGTERM", () => server.close(() => process.exit(0)));
