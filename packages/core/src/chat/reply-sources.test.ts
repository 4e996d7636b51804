import { describe, expect, it } from "vitest";
import { setup } from "../../test/harness.js";
import type { SearchIndex } from "../ports/search-index.js";
import { replySources } from "./reply-sources.js";

describe("sources on replies", () => {
  it("names the documents of the prompt's context in the prompt's order, each once, with the PDF page of its first chunk", async () => {
    const { parley, caller, chatbot, model, storage, searchIndex } = await setup();
    await parley.admin.ingestDocument(chatbot.id, {
      source: "manual.pdf",
      title: "Manual",
      type: "pdf",
      text: "",
      sections: [
        { label: "page 1", text: "Contents and safety notes." },
        { label: "page 3", text: "Refunds: a refund is paid within 14 days of the return." },
        { label: "page 4", text: "Refund exceptions: refund requests for sale items are refused." },
      ],
    });
    await parley.admin.ingestDocument(chatbot.id, { source: "https://acme.test/faq", title: "FAQ", text: "How do refunds work? Each refund goes back to the card." });
    await parley.admin.ingestDocument(chatbot.id, { source: "shipping.md", title: "Shipping", text: "Parcels travel with tracking." });
    const result = await parley.chat(caller, chatbot.id, { message: "refund refunds", session_id: "s" });

    // The prompt's context, in order: each entry begins "[n] <title>".
    const titles = [...model.requests[0]!.system.matchAll(/^\[\d+\] (.+)$/gm)].map((match) => match[1]);
    const sourceOf: Record<string, string> = { Manual: "manual.pdf", FAQ: "https://acme.test/faq", Shipping: "shipping.md" };
    const firstManualPage = model.requests[0]!.system.match(/^\[\d+\] Manual\n\(page (\d+)\)/m)?.[1];
    const expected = [];
    for (const title of new Set(titles)) {
      const source = sourceOf[title!]!;
      const documentId = (await searchIndex.getDocument(chatbot.id, { source }))!.id;
      expected.push({ documentId, title, source, page: title === "Manual" ? Number(firstManualPage) : null });
    }
    expect(titles.filter((title) => title === "Manual").length).toBeGreaterThan(1); // two chunks of the manual: cited once
    expect(firstManualPage).toMatch(/^[34]$/);
    expect(result.sources).toEqual(expected);
    const conversation = await storage.findConversation(chatbot.id, "s");
    const [, reply] = await storage.listMessages(conversation!.id);
    expect(reply!.sources).toEqual(result.sources);
    expect(result.reply).toEqual(reply);
  });

  it("is [] when no context was used, and on the user message", async () => {
    const { parley, caller, chatbot } = await setup();
    const result = await parley.chat(caller, chatbot.id, { message: "hello" });
    expect(result.sources).toEqual([]);
    expect(result.reply!.sources).toEqual([]);
    expect(result.message.sources).toEqual([]);
  });

  it("gives a streamed reply the same sources as chat() does", async () => {
    const { parley, caller, chatbot } = await setup();
    await parley.admin.ingestDocument(chatbot.id, { source: "refunds.md", title: "Refund policy", text: "Refunds are issued within 14 days." });
    const chatted = await parley.chat(caller, chatbot.id, { message: "refund days", session_id: "a" });
    let streamed: unknown;
    for await (const event of parley.chatStream(caller, chatbot.id, { message: "refund days", session_id: "b" })) if (event.type === "reply") streamed = event.message.sources;
    expect(chatted.sources).toMatchObject([{ title: "Refund policy", source: "refunds.md", page: null }]);
    expect(streamed).toEqual(chatted.sources);
  });

  it("names a document the search read with its chunk without looking it up again", async () => {
    const lookedUp: string[] = [];
    const index = { getDocument: async (_chatbotId: string, key: { source: string }) => (lookedUp.push(key.source), { id: "d-2", title: "FAQ", source: key.source, type: "html" }) } as unknown as SearchIndex;
    const sources = await replySources(index, "bot", [
      { source: "manual.pdf", text: "(page 7) Descale monthly.", document: { id: "d-1", title: "Manual", type: "pdf" } },
      { source: "faq.html", text: "Refunds." },
    ]);
    expect(sources).toEqual([
      { documentId: "d-1", title: "Manual", source: "manual.pdf", page: 7 },
      { documentId: "d-2", title: "FAQ", source: "faq.html", page: null },
    ]);
    expect(lookedUp).toEqual(["faq.html"]);
  });
});
