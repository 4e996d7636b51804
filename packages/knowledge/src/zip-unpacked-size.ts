import { Readable } from "node:stream";
import { createInflateRaw } from "node:zlib";

/**
 * Whether a ZIP archive (a DOCX) unpacks to at most `maxBytes`: every entry is really inflated
 * and its output counted, stopping as soon as the total passes the limit, because the sizes a
 * ZIP declares in its headers are whatever its author wrote there (a patched header turned a
 * 300 KB file into 380 MB). Resolves to "within", "too large", or "damaged" when there is no
 * readable central directory or an entry does not inflate. A ZIP64 entry counts as too large:
 * no DOCX of sane size needs one.
 */
export async function checkZipUnpackedSize(bytes: Uint8Array, maxBytes: number): Promise<"within" | "too large" | "damaged"> {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const entries = centralDirectory(view);
  if (entries === null) return "damaged";
  let total = 0;
  for (const entry of entries) {
    if (entry.compressedSize === 0xffffffff || entry.localHeader === 0xffffffff) return "too large";
    const at = entry.localHeader;
    if (at + 30 > view.length || view.readUInt32LE(at) !== 0x04034b50) return "damaged";
    const start = at + 30 + view.readUInt16LE(at + 26) + view.readUInt16LE(at + 28);
    const data = view.subarray(start, start + entry.compressedSize);
    if (data.length !== entry.compressedSize) return "damaged";
    const budget = maxBytes - total;
    const size = entry.method === 0 ? data.length : entry.method === 8 ? await inflatedSize(data, budget) : null;
    if (size === null) return "damaged";
    total += size;
    if (total > maxBytes) return "too large";
  }
  return "within";
}

interface CentralEntry {
  method: number;
  compressedSize: number;
  localHeader: number;
}

/** The entries the end-of-central-directory record points at, or null when it cannot be read. */
function centralDirectory(view: Buffer): CentralEntry[] | null {
  if (view.length < 22) return null;
  // The end-of-central-directory record is within the last 22 + 65,535 (comment) bytes.
  const earliest = Math.max(0, view.length - 22 - 0xffff);
  let end = -1;
  for (let at = view.length - 22; at >= earliest; at -= 1) {
    if (view.readUInt32LE(at) === 0x06054b50) {
      end = at;
      break;
    }
  }
  if (end < 0) return null;
  const count = view.readUInt16LE(end + 10);
  let at = view.readUInt32LE(end + 16);
  const entries: CentralEntry[] = [];
  for (let entry = 0; entry < count; entry += 1) {
    if (at + 46 > view.length || view.readUInt32LE(at) !== 0x02014b50) return null;
    entries.push({ method: view.readUInt16LE(at + 10), compressedSize: view.readUInt32LE(at + 20), localHeader: view.readUInt32LE(at + 42) });
    at += 46 + view.readUInt16LE(at + 28) + view.readUInt16LE(at + 30) + view.readUInt16LE(at + 32);
  }
  return entries;
}

/**
 * The size deflated data inflates to, read chunk by chunk and dropped as it comes, so no more
 * than one chunk is ever held; stops one byte past `budget`. Null when the data is not deflate.
 */
async function inflatedSize(data: Buffer, budget: number): Promise<number | null> {
  const inflater = createInflateRaw();
  let size = 0;
  try {
    for await (const chunk of Readable.from([data]).pipe(inflater) as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > budget) {
        inflater.destroy();
        return size;
      }
    }
  } catch {
    return null;
  }
  return size;
}
