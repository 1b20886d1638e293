import type { XmlHandler } from './xml-scanner.js';

const W = new Set([
  'http://schemas.openxmlformats.org/wordprocessingml/2006/main',
  'http://purl.oclc.org/ooxml/wordprocessingml/main', // strict
]);
const MC = 'http://schemas.openxmlformats.org/markup-compatibility/2006';
const VML = 'urn:schemas-microsoft-com:vml';

/**
 * The elements whose content is read, as mammoth's body reader reads them (docx/body-reader.js);
 * every other element is skipped with all it holds: properties, deleted and moved-away text,
 * field instructions, drawings' images, mc:Choice (mc:Fallback is read). `pPr` and its `rPr` are
 * entered only to see whether the paragraph mark was deleted.
 */
const READ = new Set([
  'w:document',
  'w:body',
  'w:p',
  'w:r',
  'w:t',
  'w:hyperlink',
  'w:tbl',
  'w:tr',
  'w:tc',
  'w:sdt',
  'w:sdtContent',
  'w:customXml',
  'w:ins',
  'w:moveTo',
  'w:object',
  'w:smartTag',
  'w:drawing',
  'w:pict',
  'w:txbxContent',
  'v:roundrect',
  'v:shape',
  'v:textbox',
  'v:group',
  'v:rect',
  'mc:AlternateContent',
  'mc:Fallback',
  'w:pPr',
]);
/** Elements that stand for a character. */
const CHARACTERS: Readonly<Record<string, string>> = {
  'w:tab': '\t',
  'w:noBreakHyphen': '\u2011',
  'w:softHyphen': '\u00AD',
};

/**
 * The raw text of a WordprocessingML body from XmlScanner's events, as mammoth's extractRawText
 * made it: the text of `w:t`, a tab for `w:tab`, a blank line after each paragraph (one whose
 * mark was deleted runs on into the next). Stops collecting once it holds `maxChars` (`full`).
 */
export class WordBodyText implements XmlHandler {
  private readonly pieces: string[] = [];
  /** Where text goes: the pieces, or the content of a `w:pict` (a text box), which follows its paragraph. */
  private readonly sinks: string[][] = [this.pieces];
  /** For each open paragraph, the text boxes met in it. */
  private readonly boxes: string[][][] = [];
  private length = 0;
  /** The entered elements, by prefixed name (`w:p`). */
  private readonly path: string[] = [];
  /** Depth inside a skipped element (0: not skipping). */
  private skipping = 0;
  private paragraphMarkDeleted = false;

  constructor(private readonly maxChars: number) {}

  get full(): boolean {
    return this.length >= this.maxChars;
  }

  /** Whether the document element held a body (mammoth refused a part without one). */
  hasBody = false;

  collected(): string {
    return this.pieces.join('');
  }

  text(characters: string): void {
    if (!this.skipping && this.path.at(-1) === 'w:t') this.add(characters);
  }

  start(namespace: string, name: string): void {
    if (this.skipping) {
      this.skipping++;
      return;
    }
    const element = prefixed(namespace, name);
    const parent = this.path.at(-1);
    if (element === 'w:body' && parent === 'w:document') this.hasBody = true;
    if (element === 'w:del' && parent === 'w:rPr' && this.path.at(-2) === 'w:pPr') this.paragraphMarkDeleted = true;
    if (element in CHARACTERS) this.add(CHARACTERS[element]);
    if (READ.has(element) || (element === 'w:rPr' && parent === 'w:pPr')) this.path.push(element);
    else this.skipping = 1;
    if (element === 'w:p') this.boxes.push([]);
    if (element === 'w:pict') this.sinks.push([]);
  }

  end(namespace: string, name: string): void {
    if (this.skipping) {
      this.skipping--;
      return;
    }
    this.path.pop();
    const element = prefixed(namespace, name);
    if (element === 'w:pict') {
      const box = this.sinks.pop()!;
      const paragraph = this.boxes.at(-1);
      if (paragraph) paragraph.push(box);
      else this.sinks.at(-1)!.push(...box);
    }
    if (element !== 'w:p') return;
    if (!this.paragraphMarkDeleted) this.add('\n\n');
    this.paragraphMarkDeleted = false;
    // mammoth puts a paragraph's text boxes after it (insertExtra).
    for (const box of this.boxes.pop() ?? []) this.sinks.at(-1)!.push(...box);
  }

  private add(characters: string): void {
    if (this.full) return;
    this.sinks.at(-1)!.push(characters);
    this.length += characters.length;
  }
}

function prefixed(namespace: string, name: string): string {
  if (W.has(namespace)) return `w:${name}`;
  if (namespace === MC) return `mc:${name}`;
  if (namespace === VML) return `v:${name}`;
  return `{${namespace}}${name}`;
}
