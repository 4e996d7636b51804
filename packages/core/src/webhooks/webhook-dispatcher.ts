import type { EventBus } from "../events/event-bus.js";
import type { Clock } from "../ports/clock.js";
import type { Ids } from "../ports/ids.js";
import type { Storage } from "../ports/storage.js";
import type { WebhookSecrets } from "../ports/webhook-secrets.js";
import { randomIds } from "../support/ids.js";
import { formatTimestamp, millisToMicros, systemClock } from "../support/time.js";
import { attemptDelivery, type AttemptContext, type AttemptReport } from "./attempt-delivery.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./retry-schedule.js";

/** Least time between the starts of two passes that committed events ask for (see `onEvent`). */
const EVENT_PASS_GAP_MS = 20;
/**
 * The same while the last events fanned out were wanted by no subscription (and the last claim
 * found nothing due): committed events then wait this long for the next pass, so a server whose
 * events no one subscribed to does four passes a second, not fifty.
 */
const QUIET_EVENT_PASS_GAP_MS = 250;

/** docs/design.md §5: a 2xx within 10 s is a delivery. */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;

/** How to run a dispatcher; everything but storage and secrets has a default. */
export interface WebhookDispatcherOptions {
  storage: Storage;
  secrets: WebhookSecrets;
  clock?: Clock;
  ids?: Ids;
  /** Defaults to the global `fetch`. */
  fetch?: typeof fetch;
  /** Refuses URLs at non-public addresses, for subscriptions made through the operator API. */
  checkUrl?: (url: string) => Promise<void>;
  /**
   * The transport of those subscriptions: it must connect only to an address it has itself
   * resolved and found public (the server's pinned transport), so a name that answers public to
   * `checkUrl` and 127.0.0.1 to the connection (DNS rebinding) reaches nothing. Defaults to `fetch`.
   */
  fetchPublic?: typeof fetch;
  /** When given, a committed event makes the started dispatcher run at once instead of at its next poll. */
  events?: EventBus;
  /** An attempt without a 2xx answer by then is cut and retried. Default 10 000 ms. */
  timeoutMs?: number;
  /** Attempts in flight at once, in all. Default 16. */
  concurrency?: number;
  /** Attempts in flight at once for one subscription, so a slow receiver holds few slots. Default 4. */
  perSubscriptionConcurrency?: number;
  retry?: Partial<RetryPolicy>;
  /** How long a claimed attempt is leased before another dispatcher may take it over. Default timeout + 50 s. */
  leaseMs?: number;
  /** How often the started dispatcher looks for due deliveries. Default 1 000 ms. */
  pollIntervalMs?: number;
  /** Outbox events fanned out per storage step. Default 100. */
  batchSize?: number;
  /** One entry per attempt (`webhook_attempt`) and per unexpected error (`webhook_dispatcher_error`). */
  log?: (entry: Record<string, unknown>) => void;
}

/** A running or idle dispatcher of webhook deliveries. */
export interface WebhookDispatcher {
  /** Polls and delivers in the background until `stop`. */
  start(): void;
  /** Stops polling and resolves once the attempts in flight have finished and been recorded. */
  stop(): Promise<void>;
  /** Fans out the outbox, attempts every due delivery it can, and resolves with the attempts once they finish. */
  runOnce(): Promise<AttemptReport[]>;
  /** Asks a started dispatcher to look for work now (the outbox stays the source of truth). */
  nudge(): void;
}

/**
 * The webhook dispatcher: outbox → deliveries → signed POSTs with retries. The chat route only
 * writes the outbox; everything slow happens here, bounded in all and per subscription, and a
 * busy subscription is left out of the next claim so its receiver never holds up another's.
 */
export function createWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  const clock = options.clock ?? systemClock;
  const ids = options.ids ?? randomIds;
  const timeoutMs = options.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
  const concurrency = Math.max(1, options.concurrency ?? 16);
  const perSubscription = Math.max(1, options.perSubscriptionConcurrency ?? 4);
  const leaseMs = options.leaseMs ?? timeoutMs + 50_000;
  const pollIntervalMs = options.pollIntervalMs ?? 1_000;
  const batchSize = options.batchSize ?? 100;
  const log = options.log ?? (() => {});
  const context: AttemptContext = {
    storage: options.storage,
    secrets: options.secrets,
    clock,
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    checkUrl: options.checkUrl,
    fetchPublic: options.fetchPublic,
    timeoutMs,
    retry: { ...DEFAULT_RETRY_POLICY, ...options.retry },
  };

  const inFlight = new Set<Promise<void>>();
  const busySubscriptions = new Map<string, number>();
  let running = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** When the armed timer fires (performance.now()), or undefined when none is armed. */
  let timerDueAt: number | undefined;
  /** When the last pass began (performance.now()). */
  let lastPassAt = -Infinity;
  let passing: Promise<Promise<AttemptReport>[]> | undefined;
  let again = false;
  /** The last events fanned out made no delivery, and the last claim found nothing (see QUIET_EVENT_PASS_GAP_MS). */
  let quiet = false;

  /** Fans out every waiting event. */
  async function fanOut(): Promise<void> {
    for (;;) {
      const done = await options.storage.fanOutOutboxEvents({ limit: batchSize, at: clock.now(), newId: () => ids.uuid() });
      if (done.events > 0) quiet = done.deliveries === 0;
      if (done.events < batchSize) return;
    }
  }

  /** One look for work: fan out, claim what free slots allow, launch the attempts. */
  async function dispatchDue(): Promise<Promise<AttemptReport>[]> {
    lastPassAt = performance.now();
    await fanOut();
    const free = concurrency - inFlight.size;
    if (free <= 0) return [];
    const now = clock.now();
    const claimed = await options.storage.claimDueDeliveries({
      now,
      limit: free,
      perSubscriptionLimit: perSubscription,
      skipSubscriptionIds: [...busySubscriptions.keys()],
      leaseUntil: now + millisToMicros(leaseMs),
    });
    if (claimed.length > 0) quiet = false;
    return claimed.map((delivery) => {
      const subscriptionId = delivery.subscription.id;
      busySubscriptions.set(subscriptionId, (busySubscriptions.get(subscriptionId) ?? 0) + 1);
      const attempt = attemptDelivery(context, delivery);
      const settled: Promise<void> = attempt
        .then((report) => log(logEntry(report)), reportError)
        .finally(() => {
          inFlight.delete(settled);
          const left = (busySubscriptions.get(subscriptionId) ?? 1) - 1;
          if (left > 0) busySubscriptions.set(subscriptionId, left);
          else busySubscriptions.delete(subscriptionId);
          // A freed slot may have work waiting. (An outcome that could not be recorded is
          // retried once the lease ends.)
          if (running) nudge();
        });
      inFlight.add(settled);
      return attempt;
    });
  }

  /** Runs passes one at a time; a request during a pass runs one more pass after it. */
  function pass(): Promise<Promise<AttemptReport>[]> {
    if (passing) {
      again = true;
      return passing;
    }
    passing = (async () => {
      const launched: Promise<AttemptReport>[] = [];
      try {
        do {
          again = false;
          launched.push(...(await dispatchDue()));
        } while (again);
        return launched;
      } finally {
        passing = undefined;
      }
    })();
    return passing;
  }

  function reportError(error: unknown): void {
    log({ level: "error", event: "webhook_dispatcher_error", error: error instanceof Error ? error.message.split("\n")[0] : String(error) });
  }

  function schedule(delayMs: number): void {
    clearTimeout(timer);
    timerDueAt = undefined;
    if (!running) return;
    timerDueAt = performance.now() + delayMs;
    timer = setTimeout(() => {
      timerDueAt = undefined;
      pass()
        .catch(reportError)
        .finally(() => schedule(pollIntervalMs));
    }, delayMs);
  }

  function nudge(): void {
    if (running) schedule(0);
  }

  /**
   * A committed event: a pass at once, or, when one began less than EVENT_PASS_GAP_MS ago, when
   * that gap is over. Under a stream of chats (three events each) the passes, each a write
   * transaction or two, then run a few dozen times a second instead of once or more per chat;
   * a webhook leaves at most that gap later. While the events fanned out last were wanted by no
   * subscription, the gap is QUIET_EVENT_PASS_GAP_MS: the first webhook after such a spell (a new
   * subscription, an event type subscribed to but rare) leaves at most that later.
   * An already armed timer that fires by then stays.
   */
  function onEvent(): void {
    if (!running) return;
    const now = performance.now();
    const at = Math.max(now, lastPassAt + (quiet ? QUIET_EVENT_PASS_GAP_MS : EVENT_PASS_GAP_MS));
    if (timerDueAt !== undefined && timerDueAt <= at) return;
    schedule(at - now);
  }

  return {
    start() {
      if (running) return;
      running = true;
      options.events?.on("*", onEvent);
      schedule(0);
    },
    async stop() {
      running = false;
      clearTimeout(timer);
      options.events?.off("*", onEvent);
      await passing?.catch(() => {});
      await Promise.all(inFlight);
    },
    async runOnce() {
      return Promise.all(await pass());
    },
    nudge,
  };
}

/** A log line in the server's style (snake_case, times as text); a failed delivery is an error. */
function logEntry(report: AttemptReport): Record<string, unknown> {
  return {
    level: report.outcome === "failed" ? "error" : "info",
    event: "webhook_attempt",
    delivery_id: report.deliveryId,
    subscription_id: report.subscriptionId,
    event_type: report.eventType,
    attempt: report.attempt,
    outcome: report.outcome,
    response_status: report.responseStatus,
    error: report.error,
    next_attempt_at: report.nextAttemptAt === null ? null : formatTimestamp(report.nextAttemptAt),
  };
}
