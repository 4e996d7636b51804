import { describe, expect, it } from "vitest";
import { createChatTurns } from "./chat-turns.js";

/** One turn of the event loop: an immediate scheduled now runs after those already waiting. */
const aTurn = () => new Promise((resolve) => setImmediate(resolve));

describe("createChatTurns", () => {
  it("starts one chat a turn of the event loop, in the order they asked", async () => {
    const turns = createChatTurns();
    const started: string[] = [];
    for (const name of ["first", "second", "third"]) void turns.next().then(() => started.push(name));
    expect(started).toEqual([]);
    await aTurn();
    expect(started).toEqual(["first"]);
    await aTurn();
    expect(started).toEqual(["first", "second"]);
    // One asking meanwhile waits behind those already waiting.
    void turns.next().then(() => started.push("fourth"));
    await aTurn();
    expect(started).toEqual(["first", "second", "third"]);
    await aTurn();
    expect(started).toEqual(["first", "second", "third", "fourth"]);
  });

  it("starts a chat that asks after the queue emptied at the next turn", async () => {
    const turns = createChatTurns();
    await turns.next();
    let started = false;
    void turns.next().then(() => (started = true));
    await aTurn();
    expect(started).toBe(true);
  });
});
