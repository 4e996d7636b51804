/**
 * The total size a ZIP archive (a DOCX) unpacks to, as its central directory declares it, or
 * null when there is no readable central directory. A ZIP64 entry counts as infinite: no DOCX
 * of sane size needs one. Read before unpacking, so a small file that inflates to gigabytes
 * (a "zip bomb") is refused instead of exhausting the server's memory.
 */
export function zipUnpackedSize(bytes: Uint8Array): number | null {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
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
  const entries = view.readUInt16LE(end + 10);
  let at = view.readUInt32LE(end + 16);
  let total = 0;
  for (let entry = 0; entry < entries; entry += 1) {
    if (at + 46 > view.length || view.readUInt32LE(at) !== 0x02014b50) return null;
    const size = view.readUInt32LE(at + 24);
    if (size === 0xffffffff) return Number.POSITIVE_INFINITY;
    total += size;
    at += 46 + view.readUInt16LE(at + 28) + view.readUInt16LE(at + 30) + view.readUInt16LE(at + 32);
  }
  return total;
}
