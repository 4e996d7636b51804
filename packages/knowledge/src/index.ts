export { createKnowledgeSources, PARLEY_USER_AGENT, type KnowledgeSourcesOptions } from "./create-knowledge-sources.js";
export { isPublicAddress } from "./is-public-address.js";
export { createPublicLookup, NonPublicAddressError, type LookupFunction } from "./public-lookup.js";
export { detectType, type DocumentType } from "./detect-type.js";
export { readDocument, type DocumentBytes, type ReadDocument } from "./read-document.js";
export { DocumentError } from "./document-error.js";
export { createDocumentReader, type DocumentReader, type DocumentReaderOptions } from "./create-document-reader.js";
export { DEFAULT_READ_LIMITS, type ReadLimits } from "./read-limits.js";
