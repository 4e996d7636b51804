/** A chatbot's chat widget settings (docs/design.md §14); off by default. */
export interface WidgetSettings {
  enabled: boolean;
  /** Origins (`scheme://host[:port]`) whose pages may use the public routes. */
  allowed_origins: string[];
  /** null: the chatbot's name. */
  title: string | null;
  welcome_message: string;
  starter_questions: string[];
  accent_color: string;
  position: "right" | "left";
  /** Only visitors with a verified identity may chat. */
  identity_required: boolean;
}

/** The settings of a chatbot whose owner never touched its widget. */
export const DEFAULT_WIDGET_SETTINGS: WidgetSettings = {
  enabled: false,
  allowed_origins: [],
  title: null,
  welcome_message: "",
  starter_questions: [],
  accent_color: "#2563eb",
  position: "right",
  identity_required: false,
};
