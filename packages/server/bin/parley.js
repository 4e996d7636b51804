#!/usr/bin/env node
// The CLI runs from the built package; `npm install` at the repository root builds it (the root `prepare` script).
import { main } from "../dist/cli.js";

process.exitCode = await main(process.argv.slice(2));
