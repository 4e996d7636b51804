export { createKnowledgeSources, PARLEY_USER_AGENT, type KnowledgeSourcesOptions } from "./create-knowledge-sources.js";
export { isPublicAddress } from "./is-public-address.js";
export { createPublicLookup, NonPublicAddressError, type LookupFunction } from "./public-lookup.js";
export { detectType, type DocumentType } from "./detect-type.js";
export { readDocument, type DocumentBytes, type ReadDocument } from "./read-document.js";
export { DocumentError } from "./document-error.js";
