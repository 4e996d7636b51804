// The CLI from its TypeScript sources, for tests: `node --conditions=source --import tsx test/run-cli.ts …`.
import { main } from "../src/cli.js";

process.exitCode = await main(process.argv.slice(2));
