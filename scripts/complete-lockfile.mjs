// Completes package-lock.json with rollup's platform packages for other machines.
//
// Why: rollup (a dependency of tsup) lists one optional native package per platform. The npm
// registry this project's machines reach serves only the Linux x64/arm64 ones, so `npm install`
// leaves the others out of the lock, and `npm ci` then refuses the lock as out of sync. An
// entry that names the platform (os, cpu, libc) is enough: npm skips it on every other
// machine without fetching it, and `npm install` keeps such entries. Run after changing
// dependencies: `node scripts/complete-lockfile.mjs`.
import { readFileSync, writeFileSync } from "node:fs";

const path = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(path, "utf8"));
const rollup = lock.packages["node_modules/rollup"];
let added = 0;
for (const name of Object.keys(rollup?.optionalDependencies ?? {})) {
  const key = `node_modules/${name}`;
  if (lock.packages[key]) continue;
  const match = /^@rollup\/rollup-([a-z0-9]+)-([a-z0-9]+)(?:-(gnu|musl|gnueabihf|musleabihf|msvc|eabi|ohos))?$/.exec(name);
  if (!match) throw new Error(`Unexpected rollup platform package name: ${name}`);
  const [, os, cpu, abi] = match;
  const entry = { version: rollup.version, cpu: [cpu], os: [os], license: "MIT", optional: true };
  if (os === "linux") entry.libc = [abi?.startsWith("musl") ? "musl" : "glibc"];
  lock.packages[key] = entry;
  added += 1;
}
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added} platform entries for rollup ${rollup?.version}`);
