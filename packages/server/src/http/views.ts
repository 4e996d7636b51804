import { eventBodySchema } from "./views-events.js";
import { chatViews } from "./views-chat.js";
import { operatorViews } from "./views-operator.js";
import { widgetViews } from "./views-widget.js";

/** Every answer's schema, by its component name in docs/openapi.json: what an endpoint's `success.schema` names. */
export const VIEWS = { ...chatViews, ...operatorViews, EventBody: eventBodySchema, ...widgetViews };

/** The name of a view. */
export type ViewName = keyof typeof VIEWS;
