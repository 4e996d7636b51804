import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Locator, Page } from "playwright-core";

const SCREENSHOTS = process.env.PARLEY_CONSOLE_SCREENSHOTS === "1" ? fileURLToPath(new URL("../../../../docs/console/", import.meta.url)) : undefined;

/**
 * Saves a screenshot into docs/console/ when PARLEY_CONSOLE_SCREENSHOTS=1 (the command in
 * docs/console.md), so an ordinary test run leaves the repository untouched.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (!SCREENSHOTS) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });
}

/** A link of the console's top navigation. */
export function nav(page: Page, name: string) {
  return page.getByRole("navigation", { name: "Console" }).getByRole("link", { name });
}

/** Presses Tab until the element has the focus, as a keyboard user would (at most 60 times). */
export async function tabTo(page: Page, target: Locator): Promise<void> {
  for (let press = 0; press < 60; press += 1) {
    if (await target.evaluate((element) => element === element.ownerDocument.activeElement)) return;
    await page.keyboard.press("Tab");
  }
  throw new Error(`Tab never reached ${String(target)}`);
}

/** Opens the console and signs in with the key. */
export async function signIn(page: Page, url: string, key: string): Promise<void> {
  await page.goto(`${url}/console/`);
  await page.getByLabel("Admin key").fill(key);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Inbox" }).waitFor();
}

/** One HTTP call to the API with a bearer key and an optional JSON body. */
export async function api(url: string, key: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${url}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as unknown) : undefined };
}
