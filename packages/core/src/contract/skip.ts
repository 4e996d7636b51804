/** A contract case an adapter cannot pass, with the reason it is skipped. */
export interface SkippedCase {
  test: string;
  reason: string;
}

/** Whether a case is skipped; an unknown name in `skip` is an error, so skips cannot rot. */
export function skipper(suite: string, cases: readonly string[], skip: readonly SkippedCase[] = []) {
  for (const skipped of skip) {
    if (!cases.includes(skipped.test)) throw new Error(`${suite}: no case named "${skipped.test}" to skip.`);
    if (skipped.reason.trim() === "") throw new Error(`${suite}: skipping "${skipped.test}" needs a reason.`);
  }
  return (test: string) => skip.some((skipped) => skipped.test === test);
}
