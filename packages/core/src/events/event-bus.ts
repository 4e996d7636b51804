import mitt, { type Emitter, type EventType as MittEventType } from "mitt";
import type { ParleyEventMap } from "../domain/events.js";

/**
 * The in-process bus library users subscribe to. It is told of events after the transaction
 * that wrote them commits; durable webhook delivery reads the outbox, not this bus.
 */
export type EventBus = Emitter<ParleyEventMap>;

// mitt ships CommonJS-style typings beside its ESM build: at run time the default import is
// the factory, which TypeScript's NodeNext resolution cannot see, hence the one cast.
const createEmitter = mitt as unknown as <Events extends Record<MittEventType, unknown>>() => Emitter<Events>;

/** A new typed event bus. */
export function createEventBus(): EventBus {
  return createEmitter<ParleyEventMap>();
}
