// An instantly answering fake OpenAI in its own process, so its work is not charged to the
// server or the load generator. Prints its base URL on stdout, then runs until SIGTERM.
import { startFakeOpenAI } from "@parley/providers/testing";

const fake = await startFakeOpenAI({ instant: true });
process.stdout.write(`${fake.url}\n`);
process.once("SIGTERM", () => void fake.close().then(() => process.exit(0)));
