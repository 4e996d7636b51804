// The `parley` CLI from its TypeScript sources: `node --conditions=source --import tsx bench/serve-from-source.ts serve …`.
import { main } from "../src/cli.js";

process.exitCode = await main(process.argv.slice(2));
