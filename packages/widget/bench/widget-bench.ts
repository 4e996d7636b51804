// The widget's budgets, measured (docs/benchmarks.md): builds the widget for production, prints
// the loader's and the frame's first-load gzip sizes, then runs a real `parley serve` with the
// fake OpenAI and a host site on another 127.0.0.1 origin, and times in Chromium, on fresh
// pages, the launcher's appearance after the host page's load event and the time from a click
// on it to a usable message box.
// Run: npm run bench:widget
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { buildWidget } from "../test/support/production-build.js";
import { FRAME_BUDGET, LOADER_BUDGET, widgetSizes } from "../test/support/sizes.js";
import { LAUNCHER_VISIBLE_AFTER_LOAD, startWidgetFixture } from "../test/support/widget-fixture.js";

const ROUNDS = 7;
const folder = mkdtempSync(join(tmpdir(), "parley-widget-bench-"));
await buildWidget(folder);
const sizes = widgetSizes(folder);
const kib = (bytes: number) => `${(bytes / 1024).toFixed(2)} KiB`;

console.log(`Machine: ${cpus()[0]?.model ?? "unknown CPU"} x ${cpus().length}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, load ${loadavg().map((value) => value.toFixed(2)).join(" ")}`);
console.log("file\tbytes\tgzip");
for (const file of sizes.files) console.log(`${file.name}\t${file.bytes}\t${file.gzip}`);
console.log(`loader /widget.js: ${kib(sizes.loader)} gzip (budget ${kib(LOADER_BUDGET)})`);
console.log(`frame first load (page, script, styles): ${kib(sizes.frame)} gzip (budget ${kib(FRAME_BUDGET)})`);

const fixture = await startWidgetFixture(folder);
const visible: number[] = [];
const usable: number[] = [];
try {
  for (let round = 0; round < ROUNDS; round += 1) {
    const page = await fixture.browser.newPage();
    await page.goto(`${fixture.site.origin}/`);
    visible.push((await page.evaluate(LAUNCHER_VISIBLE_AFTER_LOAD)) as number);
    const started = performance.now();
    await page.getByRole("button", { name: "Open chat" }).click();
    const textbox = page.frameLocator('iframe[title="Chat"]').getByRole("textbox", { name: "Message" });
    await textbox.waitFor();
    while (!(await textbox.isEnabled())) await new Promise((resolve) => setTimeout(resolve, 5));
    usable.push(performance.now() - started);
    await page.close();
  }
  const others = fixture.browser.requests.filter((url) => /^https?:/.test(url) && ![fixture.parley.url, fixture.site.origin].includes(new URL(url).origin));
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  console.log(`launcher visible after the host page's load event: median ${median(visible).toFixed(0)} ms, max ${Math.max(...visible).toFixed(0)} ms over ${ROUNDS} loads (budget 300 ms)`);
  console.log(`open (click) to a usable message box: median ${median(usable).toFixed(0)} ms, max ${Math.max(...usable).toFixed(0)} ms over ${ROUNDS} opens`);
  console.log(`requests to another origin: ${others.length}`);
} finally {
  await fixture.close();
  rmSync(folder, { recursive: true, force: true });
}
