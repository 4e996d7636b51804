/** The detail of a document that hit a reader's limit: its time, its memory or its stack. */
export const TOO_COMPLEX = "The document is too complex to read.";
/** The detail of a document a parser failed on in a way it did not explain. */
export const UNREADABLE = "The document could not be read.";
