// The security review's hostile inputs (issue 24), built in memory so tests and the replay
// script (`npm run bench:hostile`) use the same bytes.
import { crc32, deflateRawSync } from "node:zlib";

/** 30,000 unclosed `<div><span><b><i>` (510 KB): overflowed the parser's stack on the event loop. */
export function poisonHtml(): Buffer {
  return Buffer.from(`<html><body>${"<div><span><b><i>".repeat(30_000)}text`);
}

/** About 1.1 MB of nested tags: blocked every request for 23–90 s when parsed on the event loop. */
export function deeplyNestedHtml(): Buffer {
  return Buffer.from(`<html><body>${"<div><p><span><a><em><strong><b><i><u>".repeat(30_000)}`);
}

/** A PDF of `pages` pages of one line each (5,000 took 5.6 s on the event loop). */
export function manyPagePdf(pages: number): Buffer {
  const objects: string[] = [];
  const kids: string[] = [];
  // 1: catalog, 2: pages, 3: font, then one page and one content stream per page.
  for (let page = 0; page < pages; page += 1) {
    const pageObject = 4 + page * 2;
    kids.push(`${pageObject} 0 R`);
    const stream = `BT /F1 12 Tf 72 720 Td (Line of page ${page + 1}.) Tj ET`;
    objects[pageObject] = `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${pageObject + 1} 0 R >>`;
    objects[pageObject + 1] = `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`;
  }
  objects[1] = "<< /Type /Catalog /Pages 2 0 R >>";
  objects[2] = `<< /Type /Pages /Kids [${kids.join(" ")}] /Count ${pages} >>`;
  objects[3] = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>";
  let body = "%PDF-1.4\n";
  const offsets: number[] = [];
  for (let number = 1; number < objects.length; number += 1) {
    offsets[number] = body.length;
    body += `${number} 0 obj\n${objects[number]}\nendobj\n`;
  }
  const xref = body.length;
  body += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let number = 1; number < objects.length; number += 1) body += `${String(offsets[number]).padStart(10, "0")} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, "latin1");
}

/** The two parts every DOCX has beside its document. */
const CONTENT_TYPES =
  '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';
const RELATIONSHIPS =
  '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>';

/**
 * A DOCX whose document part really inflates to `unpackedBytes` of XML while every ZIP header
 * declares 1,000 bytes: the patched-header bomb (300 KB took 380 MB when the headers were trusted).
 */
export function zipBombDocx(unpackedBytes: number): Buffer {
  const filler = Buffer.alloc(unpackedBytes - 200, " ");
  const documentXml = Buffer.concat([
    Buffer.from('<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>Hi</w:t></w:r></w:p>'),
    filler,
    Buffer.from("</w:body></w:document>"),
  ]);
  return zip(
    [
      ["[Content_Types].xml", Buffer.from(CONTENT_TYPES)],
      ["_rels/.rels", Buffer.from(RELATIONSHIPS)],
      ["word/document.xml", documentXml],
    ],
    { declaredSize: 1_000 },
  );
}

/**
 * A DOCX of about `textBytes` of text: sections of a heading and ten paragraphs each, every
 * paragraph a different sentence. Large, not hostile: for measuring what a big document costs.
 */
export function largeDocx(textBytes: number): Buffer {
  const sentence = (n: number) => `Paragraph ${n} of the manual explains how the Acme kettle number ${n} boils water and how to descale it.`;
  const parts: string[] = [];
  for (let n = 0, size = 0; size < textBytes; n += 1) {
    if (n % 10 === 0) parts.push(`<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Section ${n / 10}</w:t></w:r></w:p>`);
    const text = sentence(n);
    parts.push(`<w:p><w:r><w:t>${text}</w:t></w:r></w:p>`);
    size += text.length;
  }
  const documentXml = Buffer.from(`<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${parts.join("")}</w:body></w:document>`);
  return zip([
    ["[Content_Types].xml", Buffer.from(CONTENT_TYPES)],
    ["_rels/.rels", Buffer.from(RELATIONSHIPS)],
    ["word/document.xml", documentXml],
  ]);
}

/** A deflated ZIP of `entries`; `declaredSize` overwrites every header's uncompressed size (a lie). */
export function zip(entries: [string, Buffer][], options: { declaredSize?: number } = {}): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of entries) {
    const data = deflateRawSync(content);
    const nameBytes = Buffer.from(name);
    const size = options.declaredSize ?? content.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc32(content), 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc32(content), 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, data);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
