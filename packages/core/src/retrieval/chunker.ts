/** How text is cut into chunks. */
export interface ChunkOptions {
  /** Longest chunk, in characters (default 800). */
  maxChars?: number;
  /** Characters of whole sentences repeated from the end of one chunk at the start of the next (default 150). */
  overlapChars?: number;
}

/** A piece that is never cut: a sentence, or a run of words of an over-long sentence. */
interface Unit {
  text: string;
  startsParagraph: boolean;
  /** Follows a line break inside its paragraph (a list item, a table row), kept in the chunk. */
  startsLine?: boolean;
}

const sentences = new Intl.Segmenter("en", { granularity: "sentence" });
const words = new Intl.Segmenter("en", { granularity: "word" });

/**
 * Cuts text into chunks of at most `maxChars` characters, at paragraph boundaries first, then
 * sentence boundaries, then word boundaries, with whole sentences of overlap between neighbours.
 * A line break inside a paragraph (list items, table rows) stays a line break.
 * Only a single word longer than a whole chunk (a URL, a hash) is ever cut inside.
 */
export function chunkText(text: string, options: ChunkOptions = {}): string[] {
  const maxChars = Math.max(50, options.maxChars ?? 800);
  const overlapChars = Math.min(options.overlapChars ?? 150, Math.floor(maxChars / 2));
  return packUnits(splitIntoUnits(text, maxChars), maxChars, overlapChars);
}

function splitIntoUnits(text: string, maxChars: number): Unit[] {
  const units: Unit[] = [];
  const paragraphs = text.replace(/\r\n?/g, "\n").split(/\n[ \t]*\n/);
  for (const paragraph of paragraphs) {
    let startsParagraph = true;
    let startsLine = false;
    for (const { segment } of sentences.segment(paragraph.trim())) {
      const sentence = segment.trim();
      if (sentence === "") continue;
      for (const piece of sentence.length <= maxChars ? [sentence] : splitLongSentence(sentence, maxChars)) {
        units.push(startsLine && !startsParagraph ? { text: piece, startsParagraph, startsLine } : { text: piece, startsParagraph });
        startsParagraph = false;
        startsLine = false;
      }
      startsLine = /\n\s*$/.test(segment);
    }
  }
  return units;
}

/** Splits a sentence longer than a chunk into runs of whole words. */
function splitLongSentence(sentence: string, maxChars: number): string[] {
  const pieces: string[] = [];
  let current = "";
  for (const { segment } of words.segment(sentence)) {
    for (const part of segment.length <= maxChars ? [segment] : cutCodePoints(segment, maxChars)) {
      if (current.length + part.length > maxChars) {
        if (current.trim() !== "") pieces.push(current.trim());
        current = "";
      }
      current += part;
    }
  }
  if (current.trim() !== "") pieces.push(current.trim());
  return pieces;
}

/** The last resort for one word longer than a chunk: cut between code points, never inside a surrogate pair. */
function cutCodePoints(word: string, maxChars: number): string[] {
  const pieces: string[] = [];
  let current = "";
  for (const codePoint of word) {
    if (current.length + codePoint.length > maxChars) {
      pieces.push(current);
      current = "";
    }
    current += codePoint;
  }
  if (current !== "") pieces.push(current);
  return pieces;
}

function packUnits(units: Unit[], maxChars: number, overlapChars: number): string[] {
  const paragraphLengths = paragraphLengthsFrom(units);
  const chunks: string[] = [];
  let current: Unit[] = [];
  const flush = () => {
    chunks.push(render(current));
    current = overlapTail(current, overlapChars);
  };
  units.forEach((unit, index) => {
    if (current.length > 0) {
      const length = render(current).length;
      // A paragraph that would fit whole in a fresh chunk starts one, rather than being split,
      // once the current chunk is at least half full.
      const paragraph = paragraphLengths.get(index);
      const breakAtParagraph = paragraph !== undefined && paragraph <= maxChars && length >= maxChars / 2 && length + 2 + paragraph > maxChars;
      if (breakAtParagraph || render([...current, unit]).length > maxChars) {
        flush();
        while (current.length > 0 && render([...current, unit]).length > maxChars) current.shift();
      }
    }
    current.push(unit);
  });
  if (current.length > 0) chunks.push(render(current));
  return chunks;
}

/** For each unit that starts a paragraph, the rendered length of its whole paragraph. */
function paragraphLengthsFrom(units: Unit[]): Map<number, number> {
  const lengths = new Map<number, number>();
  let start = -1;
  units.forEach((unit, index) => {
    if (unit.startsParagraph) {
      start = index;
      lengths.set(index, unit.text.length);
    } else if (start >= 0) {
      lengths.set(start, lengths.get(start)! + 1 + unit.text.length);
    }
  });
  return lengths;
}

/** The trailing units of a chunk that fit in the overlap, never the whole chunk. */
function overlapTail(units: Unit[], overlapChars: number): Unit[] {
  const tail: Unit[] = [];
  let length = 0;
  for (let index = units.length - 1; index > 0; index -= 1) {
    const unit = units[index]!;
    length += unit.text.length + 1;
    if (length > overlapChars) break;
    tail.unshift(unit);
  }
  return tail;
}

function render(units: Unit[]): string {
  return units.map((unit, index) => (index === 0 ? unit.text : (unit.startsParagraph ? "\n\n" : unit.startsLine ? "\n" : " ") + unit.text)).join("");
}

/** A labelled part of a document, such as a PDF page ("page 3") or the text under a DOCX heading. */
export interface Section {
  /** Shown at the start of each of the section's chunks, so an answer can cite it. */
  label?: string;
  text: string;
}

/** Labels longer than this are cut in the chunk prefix, so a heading cannot crowd out the text. */
const MAX_LABEL_CHARS = 80;

/**
 * Chunks each section on its own (no chunk spans two pages or two headings) and starts every
 * chunk with its section's label in parentheses, e.g. `(page 3) The warranty lasts…`. The label
 * travels in the chunk's text because the index keeps one title per document (docs/design.md §12);
 * chunks stay within `maxChars`, label included.
 */
export function chunkSections(sections: Section[], options: ChunkOptions = {}): string[] {
  const maxChars = Math.max(50, options.maxChars ?? 800);
  const chunks: string[] = [];
  for (const section of sections) {
    const label = shortLabel(section.label ?? "");
    if (label === "") {
      chunks.push(...chunkText(section.text, options));
      continue;
    }
    const prefix = `(${label}) `;
    // The body gets what the prefix leaves, but never less than the chunker's floor.
    const bodyChars = Math.max(50, maxChars - prefix.length);
    for (const chunk of chunkText(section.text, { ...options, maxChars: bodyChars })) chunks.push(prefix + chunk);
  }
  return chunks;
}

function shortLabel(label: string): string {
  const clean = label.replace(/\s+/g, " ").trim();
  if (clean.length <= MAX_LABEL_CHARS) return clean;
  return `${[...clean].slice(0, MAX_LABEL_CHARS - 1).join("").trimEnd()}…`;
}
