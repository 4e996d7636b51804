import { describe, expect } from "vitest";
import { DEFAULT_WIDGET_SETTINGS, type WidgetSettings } from "../domain/widget.js";
import { START, seedChatbot, seedUser, type ContractContext, type RegisterTest } from "./storage-contract-fixtures.js";

/** The chat widget (docs/design.md §14): its settings and secret nonce stored with the chatbot; feedback on replies. */
export function registerWidgetTests(context: ContractContext, test: RegisterTest): void {
  const storage = () => context.storage();

  describe("widget", () => {
    test("a chatbot's widget is off by default, and changed settings and secret nonce round-trip", async () => {
      const owner = await seedUser(context);
      const chatbot = await seedChatbot(context, owner.id);
      expect(chatbot.widget).toEqual(DEFAULT_WIDGET_SETTINGS);
      expect(chatbot.widgetSecretNonce).toBeNull();
      expect((await storage().getChatbot(chatbot.id))!.widget.enabled).toBe(false);

      const widget: WidgetSettings = {
        enabled: true,
        allowed_origins: ["https://shop.example.com", "http://localhost:8080"],
        title: "Kettle \u0000help",
        welcome_message: "Hello!\nAsk me anything.",
        starter_questions: ["How do I descale it?", "Is it \"dishwasher\" safe?"],
        accent_color: "#0f766e",
        position: "left",
        identity_required: true,
      };
      const updated = await storage().updateChatbot(chatbot.id, { widget, widgetSecretNonce: "a1b2c3", updatedAt: START + 5 });
      expect(updated).toMatchObject({ widget, widgetSecretNonce: "a1b2c3", updatedAt: START + 5, name: chatbot.name });
      const read = (await storage().getChatbot(chatbot.id))!;
      expect(read.widget).toEqual(widget);
      expect(read.widgetSecretNonce).toBe("a1b2c3");
      expect((await storage().listChatbots(owner.id))[0]!.widget).toEqual(widget);
      // A chat reads the chatbot in its own way; the widget comes with it.
      const state = await storage().readChatState({ userId: owner.id, planName: "free", month: "2026-11", chatbotId: chatbot.id, sessionId: "s" });
      expect(state.chatbot!.widget).toEqual(widget);

      // Changing another setting keeps the widget; a caller's copy is not the stored one.
      read.widget.allowed_origins.push("https://evil.example");
      await storage().updateChatbot(chatbot.id, { name: "Renamed", updatedAt: START + 6 });
      const again = (await storage().getChatbot(chatbot.id))!;
      expect(again.widget).toEqual(widget);
      expect(again.widgetSecretNonce).toBe("a1b2c3");
      await storage().updateChatbot(chatbot.id, { widgetSecretNonce: "d4e5f6", updatedAt: START + 7 });
      expect((await storage().getChatbot(chatbot.id))!.widgetSecretNonce).toBe("d4e5f6");
    });
  });
}
