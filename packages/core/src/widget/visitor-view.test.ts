import { describe, expect, it } from "vitest";
import type { Message } from "../domain/conversation.js";
import { toMessageView } from "../operator/views.js";
import { toVisitorMessageView, visitorSourceName } from "./visitor-view.js";

describe("visitorSourceName", () => {
  it("names an absolute file path by its file name alone, whatever system wrote it", () => {
    expect(visitorSourceName("/srv/acme/knowledge/warranty.pdf")).toBe("warranty.pdf");
    expect(visitorSourceName("C:\\Users\\ana\\Manuals\\Kettle 2000.docx")).toBe("Kettle 2000.docx");
    expect(visitorSourceName("D:/kb/faq.md")).toBe("faq.md");
    expect(visitorSourceName("\\\\fileserver\\share\\returns.html")).toBe("returns.html");
  });

  it("shows a URL, an uploaded file's name and a text's title as they are, slashes included", () => {
    expect(visitorSourceName("https://acme.example/help/warranty")).toBe("https://acme.example/help/warranty");
    expect(visitorSourceName("Manual.pdf")).toBe("Manual.pdf");
    expect(visitorSourceName("Returns / refunds")).toBe("Returns / refunds");
    expect(visitorSourceName("docs/b.md")).toBe("docs/b.md");
  });
});

describe("toVisitorMessageView", () => {
  it("is the operator's view with each source named as a visitor sees it", () => {
    const reply: Message = {
      id: "9d2e6f4a-1b3c-4d5e-8f70-a1b2c3d4e5f6",
      conversationId: "c0ffee00-0000-4000-8000-000000000000",
      role: "assistant",
      author: "model",
      content: "Two years.",
      agentName: null,
      createdAt: 1_795_000_000_000_000,
      sources: [
        { documentId: "7a1b2c3d-4e5f-4a6b-9c8d-7e6f5a4b3c2d", title: "Warranty", source: "/srv/acme/knowledge/warranty.pdf", page: 2 },
        { documentId: "8b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e", title: "Help", source: "https://acme.example/help", page: null },
      ],
      feedback: null,
    };
    const operator = toMessageView(reply);
    expect(toVisitorMessageView(reply)).toEqual({
      ...operator,
      sources: [
        { document_id: "7a1b2c3d-4e5f-4a6b-9c8d-7e6f5a4b3c2d", title: "Warranty", source: "warranty.pdf", page: 2 },
        { document_id: "8b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e", title: "Help", source: "https://acme.example/help", page: null },
      ],
    });
    // The operator keeps the whole path.
    expect(operator.sources[0]!.source).toBe("/srv/acme/knowledge/warranty.pdf");
  });
});
