// `npm run lint` runs this after ESLint: no two source files of a package may import each other,
// directly or around a circle (type imports included), so each file can be read after the
// files it imports (docs/architecture.md). Prints each circle found and exits 1, or exits 0.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const SOURCE = /\.tsx?$/;
const IMPORT = /(?:^|[\s;])(?:import|export)\s[^"';]*?\sfrom\s*["'](\.[^"']+)["']|import\(\s*["'](\.[^"']+)["']\s*\)/g;

/** Every TypeScript file under a folder, recursively. */
function filesUnder(folder) {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" || entry.name === "dist" ? [] : filesUnder(path);
    return SOURCE.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

const packages = join(root, "packages");
const files = readdirSync(packages)
  .map((name) => join(packages, name, "src"))
  .filter((folder) => statSync(folder, { throwIfNoEntry: false })?.isDirectory())
  .flatMap(filesUnder);
const known = new Set(files);

/** The file a relative specifier names: `./x.js` is `./x.ts` or `./x.tsx` in the sources. */
function target(from, specifier) {
  const base = resolve(dirname(from), specifier).replace(/\.js$/, "");
  return [`${base}.ts`, `${base}.tsx`, join(base, "index.ts")].find((candidate) => known.has(candidate));
}

const graph = new Map(
  files.map((file) => {
    const text = readFileSync(file, "utf8");
    const targets = [...text.matchAll(IMPORT)].map((match) => target(file, match[1] ?? match[2])).filter(Boolean);
    return [file, [...new Set(targets)]];
  }),
);

// Tarjan's strongly connected components: every component of more than one file is a circle.
let counter = 0;
const index = new Map();
const lowest = new Map();
const stack = [];
const onStack = new Set();
const circles = [];
function visit(file) {
  index.set(file, counter);
  lowest.set(file, counter);
  counter += 1;
  stack.push(file);
  onStack.add(file);
  for (const next of graph.get(file)) {
    if (!index.has(next)) {
      visit(next);
      lowest.set(file, Math.min(lowest.get(file), lowest.get(next)));
    } else if (onStack.has(next)) lowest.set(file, Math.min(lowest.get(file), index.get(next)));
  }
  if (lowest.get(file) !== index.get(file)) return;
  const component = [];
  let member;
  do {
    member = stack.pop();
    onStack.delete(member);
    component.push(relative(root, member));
  } while (member !== file);
  if (component.length > 1) circles.push(component.sort());
}
for (const file of files) if (!index.has(file)) visit(file);

if (circles.length > 0) {
  console.error(`Import circles between source files (${circles.length}); move the shared types or code into a file both can import:`);
  for (const circle of circles) console.error(`  ${circle.join(" <-> ")}`);
  process.exit(1);
}
