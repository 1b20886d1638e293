import mammoth from 'mammoth';
import { describe, expect, it } from 'vitest';
import { makeDocx, makeZip } from '../../../../../test/fixtures/files/make-fixtures.mjs';
import { docxText } from './docx-text.js';
import { DEFAULT_EXTRACTION_LIMITS } from './extraction-limits.js';
import { XmlScanner } from './xml-scanner.js';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const ascii = (text: string) => new TextEncoder().encode(text);
const RELS =
  '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
  '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" ' +
  'Target="/word/main.xml"/></Relationships>';

/** A DOCX whose main document (found through the package relationships) is `body` inside w:document and w:body. */
function docx(body: string, { prefix = 'w', namespace = W, declarations = '' } = {}): Uint8Array {
  const xml =
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<${prefix}:document xmlns:${prefix}="${namespace}" ` +
    `xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" xmlns:v="urn:schemas-microsoft-com:vml"${declarations}>` +
    `<${prefix}:body>${body}</${prefix}:body></${prefix}:document>`;
  return makeZip([
    { name: '_rels/.rels', data: ascii(RELS) },
    { name: 'word/main.xml', data: ascii(xml) },
  ]);
}

const text = (bytes: Uint8Array) => docxText(bytes, DEFAULT_EXTRACTION_LIMITS);
const reason = (bytes: Uint8Array) =>
  docxText(bytes, DEFAULT_EXTRACTION_LIMITS).then(
    () => 'read',
    (error: { reason?: string }) => error.reason,
  );
const mammothText = async (bytes: Uint8Array) =>
  (await mammoth.extractRawText({ buffer: Buffer.from(bytes) })).value.trimEnd();

// What mammoth's raw text made of each, the reader it replaces (its DOM took ~30x the XML in heap).
const DOCUMENTS: Record<string, string> = {
  paragraphs:
    '<w:p><w:r><w:t>One</w:t></w:r></w:p><w:p><w:r><w:t xml:space="preserve">two </w:t><w:t>parts</w:t></w:r></w:p>',
  'tabs, hyphens and breaks':
    '<w:p><w:r><w:t>a</w:t><w:tab/><w:t>b</w:t><w:noBreakHyphen/><w:softHyphen/><w:br/><w:t>c</w:t></w:r></w:p>',
  'properties and tab stops':
    '<w:p><w:pPr><w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs></w:pPr><w:r><w:rPr><w:b/></w:rPr><w:t>bold</w:t></w:r></w:p>',
  'tracked changes':
    '<w:p><w:ins w:id="1"><w:r><w:t>added </w:t></w:r></w:ins><w:del w:id="2"><w:r><w:delText>removed</w:delText></w:r></w:del>' +
    '<w:moveFrom><w:r><w:t>moved away</w:t></w:r></w:moveFrom><w:r><w:t>kept</w:t></w:r></w:p>',
  'a deleted paragraph mark':
    '<w:p><w:pPr><w:rPr><w:del w:id="3"/></w:rPr></w:pPr><w:r><w:t>runs </w:t></w:r></w:p><w:p><w:r><w:t>on</w:t></w:r></w:p>',
  'fields, hyperlinks and bookmarks':
    '<w:p><w:bookmarkStart w:id="0" w:name="x"/><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> HYPERLINK "http://x" </w:instrText></w:r>' +
    '<w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>link</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r>' +
    '<w:hyperlink w:anchor="x"><w:r><w:t> anchor</w:t></w:r></w:hyperlink><w:bookmarkEnd w:id="0"/></w:p>',
  tables:
    '<w:tbl><w:tblPr/><w:tr><w:tc><w:tcPr/><w:p><w:r><w:t>cell 1</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>cell 2</w:t></w:r></w:p></w:tc></w:tr></w:tbl>',
  'content controls and smart tags':
    '<w:sdt><w:sdtPr><w:alias w:val="hidden"/></w:sdtPr><w:sdtContent><w:p><w:smartTag><w:r><w:t>in control</w:t></w:r></w:smartTag></w:p></w:sdtContent></w:sdt>',
  'alternate content and text boxes':
    '<w:p><w:r><w:t>before</w:t></w:r><w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><w:t>choice</w:t></w:drawing></mc:Choice>' +
    '<mc:Fallback><w:pict><v:shape><v:textbox><w:txbxContent><w:p><w:r><w:t>boxed</w:t></w:r></w:p></w:txbxContent></v:textbox></v:shape></w:pict></mc:Fallback>' +
    '</mc:AlternateContent></w:r><w:r><w:t> after</w:t></w:r></w:p>',
  'entities, CDATA, comments and instructions':
    '<w:p><w:r><w:t>&lt;a&gt; &amp; &quot;b&quot; &apos;c&apos; &#233;&#x1F600;</w:t><!-- a comment --><?pi x?><w:t><![CDATA[<raw>]]></w:t></w:r></w:p>',
  'unknown elements': '<w:p><w:r><w:t>seen</w:t></w:r><w:unknown><w:r><w:t>unseen</w:t></w:r></w:unknown></w:p>',
  'a bare ampersand and an undeclared prefix': '<w:p><w:r><w:t>a & b</w:t></w:r><q:r><w:t>unseen</w:t></q:r></w:p>',
};

describe('docxText', () => {
  it.each(Object.entries(DOCUMENTS))('reads %s as mammoth did', async (_, body) => {
    const bytes = docx(body);
    const read = await text(bytes);
    expect(read).toBe(await mammothText(bytes));
    expect(read).not.toBe('');
  });

  it('reads the WordprocessingML namespace under any prefix, and the strict one', async () => {
    const body = '<x:p><x:r><x:t>prefixed</x:t></x:r></x:p>';
    expect(await text(docx(body, { prefix: 'x' }))).toBe('prefixed');
    const strict = docx(body, { prefix: 'x', namespace: 'http://purl.oclc.org/ooxml/wordprocessingml/main' });
    expect(await text(strict)).toBe(await mammothText(strict));
  });

  it('reads a main document stored without compression', async () => {
    const xml = `<w:document xmlns:w="${W}"><w:body><w:p><w:r><w:t>${'stored '.repeat(20_000)}</w:t></w:r></w:p></w:body></w:document>`;
    const stored = makeZip([{ name: 'word/document.xml', data: ascii(xml), store: true }]);
    expect(await text(stored)).toBe('stored '.repeat(20_000).trimEnd());
  });

  it('finds the main document at word/document.xml without package relationships', async () => {
    expect(await text(makeDocx(['no rels'], {}))).toBe('no rels');
  });

  it.each<[string, Uint8Array]>([
    ['an undefined entity', docx('<w:p><w:r><w:t>&lol9;</w:t></w:r></w:p>')],
    ['a document cut short', cut()],
    ['no body', makeZip([{ name: 'word/document.xml', data: ascii(`<w:document xmlns:w="${W}"/>`) }])],
    ['no main document', makeZip([{ name: 'readme.txt', data: ascii('hello') }])],
  ])('calls %s malformed, as mammoth did', async (_, bytes) => {
    expect(await reason(bytes)).toBe('malformed');
    await expect(mammothText(bytes)).rejects.toThrow();
  });

  it('calls a DOCTYPE (where entity bombs live) and tags that do not nest malformed, where mammoth guessed', async () => {
    expect(await reason(dtd())).toBe('malformed');
    expect(await reason(docx('<w:p><w:r></w:p></w:r>'))).toBe('malformed');
  });

  it('stops reading once the text passes twice maxTextChars', async () => {
    const paragraphs = Array.from({ length: 1000 }, (_, i) => `paragraph ${i}`);
    const read = await docxText(makeDocx(paragraphs), { ...DEFAULT_EXTRACTION_LIMITS, maxTextChars: 100 });
    expect(read.length).toBeGreaterThanOrEqual(190); // 200 and more, less the blank line trimmed
    expect(read.length).toBeLessThan(300);
  });
});

describe('XmlScanner', () => {
  it('reports the same events however the text is cut into pieces', () => {
    const xml =
      `<?xml version="1.0"?><w:document xmlns:w="${W}"><w:body><!-- c --><w:p a='>' b="&amp;">` +
      '<w:t>x &amp; y &#x41; & z</w:t><w:t><![CDATA[skipped]]></w:t></w:p></w:body></w:document>';
    const events = (pieces: string[]) => {
      const seen: string[] = [];
      const scanner = new XmlScanner({
        start: (namespace, name, attributes) => seen.push(`<${name} ${[...attributes.values()].join(',')}`),
        end: (_, name) => seen.push(`</${name}`),
        text: (t) => (seen.at(-1)?.startsWith('"') ? (seen[seen.length - 1] += t) : seen.push(`"${t}`)),
      });
      for (const piece of pieces) scanner.write(piece);
      scanner.end();
      return seen;
    };
    const whole = events([xml]);
    expect(whole).toContain('"x & y A & z');
    expect(events([...xml])).toEqual(whole);
    for (const size of [2, 3, 7, 13]) {
      const pieces = Array.from({ length: Math.ceil(xml.length / size) }, (_, i) =>
        xml.slice(i * size, (i + 1) * size),
      );
      expect(events(pieces)).toEqual(whole);
    }
  });
});

function dtd(): Uint8Array {
  const xml = `<?xml version="1.0"?><!DOCTYPE w:document [<!ENTITY a "aaaa">]><w:document xmlns:w="${W}"><w:body/></w:document>`;
  return makeZip([{ name: 'word/document.xml', data: ascii(xml) }]);
}

function cut(): Uint8Array {
  const xml = `<w:document xmlns:w="${W}"><w:body><w:p><w:r><w:t>cut`;
  return makeZip([{ name: 'word/document.xml', data: ascii(xml) }]);
}
