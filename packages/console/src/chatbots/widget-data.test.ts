import { describe, expect, it } from "vitest";
import { originsOf, snippetOf, widgetFieldOfError, widgetItemOfError } from "./widget-data.js";

describe("the Widget section's reading of the API", () => {
  it("names the setting a refusal is about, and the item of a list", () => {
    const origin = "widget.allowed_origins.1: must be an origin written scheme://host[:port], such as https://example.com";
    expect(widgetFieldOfError(origin)).toBe("allowed_origins");
    expect(widgetItemOfError(origin)).toBe(1);
    expect(widgetFieldOfError("widget.title: must be at most 80 characters")).toBe("title");
    expect(widgetItemOfError("widget.title: must be at most 80 characters")).toBeNull();
    expect(widgetFieldOfError("widget.starter_questions.3: must be a non-empty string")).toBe("starter_questions");
    expect(widgetItemOfError("widget.starter_questions.3: must be a non-empty string")).toBe(3);
    // Not a widget setting, or not about the widget at all: shown by the button instead.
    expect(widgetFieldOfError("widget.has_secret: is not a widget setting")).toBeNull();
    expect(widgetFieldOfError("name: must be at most 200 characters")).toBeNull();
    expect(widgetFieldOfError(null)).toBeNull();
  });

  it("reads origins one per line, without blank lines or spaces", () => {
    expect(originsOf("https://shop.example\n\n  http://127.0.0.1:5173  \r\n")).toEqual(["https://shop.example", "http://127.0.0.1:5173"]);
    expect(originsOf("   \n")).toEqual([]);
  });

  it("writes the snippet of docs/design.md §14", () => {
    expect(snippetOf("https://parley.example.com", "0b6f5c2e-1a2b-4c3d-8e9f-001122334455")).toBe(
      '<script src="https://parley.example.com/widget.js" data-chatbot-id="0b6f5c2e-1a2b-4c3d-8e9f-001122334455" async></script>',
    );
  });
});
