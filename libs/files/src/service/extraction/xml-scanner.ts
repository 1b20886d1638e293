import { ExtractionError } from './extraction-errors.js';

/** What an XmlScanner reports, in document order; element names resolved to their namespace. */
export interface XmlHandler {
  start(namespace: string, name: string, attributes: ReadonlyMap<string, string>): void;
  end(namespace: string, name: string): void;
  /** Character data (entities and CDATA decoded), possibly in several pieces. */
  text(text: string): void;
}

/** No tag, comment, CDATA section or instruction of a Word part comes near this; a longer one is refused. */
const MAX_TOKEN_CHARS = 1024 * 1024;
const ENTITIES: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
const ATTRIBUTE = /([^\s=/]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
const XML_NAMESPACE = 'http://www.w3.org/XML/1998/namespace';

const malformed = (detail: string) => new ExtractionError('malformed', `The XML is malformed: ${detail}.`);

/**
 * A streaming XML reader for the parts of Office documents: text goes in as it is inflated, in
 * pieces of any size, and elements and text come out as they complete, so memory holds one
 * piece and the open elements, never the document. Checks what a reader must (tags nest and
 * close, named entities are the five predefined) and refuses a DOCTYPE (where entity bombs
 * live): any of these fails `malformed`. Not a validating parser; lenient where mammoth's parser
 * was (a bare `&`, an undeclared prefix), skipping CDATA as mammoth's reader did.
 */
export class XmlScanner {
  private buffer = '';
  private readonly open: { name: string; namespaces?: Map<string, string> }[] = [];
  private readonly namespaces: Map<string, string>[] = [new Map([['xml', XML_NAMESPACE]])];
  private rootSeen = false;

  constructor(private readonly handler: XmlHandler) {}

  write(piece: string): void {
    this.buffer += piece;
    this.buffer = this.buffer.slice(this.scan(false));
  }

  /** After the last piece: what is left must be complete, and every element closed. */
  end(): void {
    this.scan(true);
    this.buffer = '';
    if (!this.rootSeen) throw malformed('no root element');
    if (this.open.length) throw malformed(`<${this.open.at(-1)!.name}> is not closed`);
  }

  /** Reports every complete token of the buffer; answers where the incomplete rest begins. */
  private scan(last: boolean): number {
    const b = this.buffer;
    let at = 0;
    while (at < b.length) {
      const lt = b.indexOf('<', at);
      if (lt < 0) {
        // Text up to the end, but not a reference cut in two by the piece's end.
        const amp = last ? -1 : b.lastIndexOf('&');
        const upTo = amp >= at && b.indexOf(';', amp) < 0 ? amp : b.length;
        this.characters(b.slice(at, upTo));
        if (upTo < b.length && b.length - upTo > 32) {
          this.characters(b.slice(upTo)); // a bare `&`, not a reference cut in two
          return b.length;
        }
        return upTo;
      }
      if (lt > at) this.characters(b.slice(at, lt));
      const next = this.token(b, lt);
      if (next < 0) {
        if (last) throw malformed('the part ends inside a tag');
        if (b.length - lt > MAX_TOKEN_CHARS) throw malformed('a tag longer than 1 MiB');
        return lt;
      }
      at = next;
    }
    return at;
  }

  /** Handles the markup at `lt`; answers the index after it, or -1 when it is not complete yet. */
  private token(b: string, lt: number): number {
    if (b.startsWith('<?', lt)) return this.after(b, '?>', lt + 2);
    const head = b.slice(lt, lt + 9);
    if (head.length < 9 && ('<![CDATA['.startsWith(head) || '<!--'.startsWith(head))) return -1; // not told apart yet
    if (b.startsWith('<!--', lt)) return this.after(b, '-->', lt + 4);
    if (b.startsWith('<![CDATA[', lt)) {
      const close = b.indexOf(']]>', lt + 9);
      if (close < 0) return -1;
      // Word never writes CDATA; mammoth's reader skipped it, so it is skipped here too.
      if (!this.open.length) throw malformed('CDATA outside the root element');
      return close + 3;
    }
    if (b.startsWith('<!', lt)) throw malformed('a DOCTYPE or declaration');
    const gt = tagEnd(b, lt + 1);
    if (gt < 0) return -1;
    if (b[lt + 1] === '/') this.close(b.slice(lt + 2, gt).trim());
    else this.openTag(b.slice(lt + 1, gt));
    return gt + 1;
  }

  private after(b: string, close: string, from: number): number {
    const at = b.indexOf(close, from);
    return at < 0 ? -1 : at + close.length;
  }

  private openTag(tag: string): void {
    const selfClosing = tag.endsWith('/');
    const body = selfClosing ? tag.slice(0, -1) : tag;
    const nameEnd = body.search(/[\s]/);
    const name = nameEnd < 0 ? body : body.slice(0, nameEnd);
    if (!name) throw malformed('a tag without a name');
    if (this.rootSeen && !this.open.length) throw malformed('a second root element');
    this.rootSeen = true;
    const attributes = new Map<string, string>();
    let namespaces: Map<string, string> | undefined;
    for (const match of body.slice(name.length).matchAll(ATTRIBUTE)) {
      const value = decode(match[2] ?? match[3] ?? '');
      attributes.set(match[1], value);
      if (match[1] === 'xmlns' || match[1].startsWith('xmlns:'))
        (namespaces ??= new Map()).set(match[1] === 'xmlns' ? '' : match[1].slice(6), value);
    }
    if (namespaces) this.namespaces.push(namespaces);
    this.open.push({ name, namespaces });
    const [namespace, local] = this.resolve(name);
    this.handler.start(namespace, local, attributes);
    if (selfClosing) this.close(name);
  }

  private close(name: string): void {
    const top = this.open.pop();
    if (!top || top.name !== name) throw malformed(`</${name}> closes ${top ? `<${top.name}>` : 'nothing'}`);
    const [namespace, local] = this.resolve(name);
    if (top.namespaces) this.namespaces.pop();
    this.handler.end(namespace, local);
  }

  private resolve(name: string): [string, string] {
    const colon = name.indexOf(':');
    const prefix = colon < 0 ? '' : name.slice(0, colon);
    for (let i = this.namespaces.length - 1; i >= 0; i--) {
      const uri = this.namespaces[i].get(prefix);
      if (uri !== undefined) return [uri, name.slice(colon + 1)];
    }
    // An undeclared prefix names no namespace known here: its element is skipped, as mammoth's parser let it be.
    return ['', name];
  }

  private characters(text: string): void {
    if (!text) return;
    if (!this.open.length) {
      if (text.trim()) throw malformed('text outside the root element');
      return;
    }
    this.handler.text(decode(text));
  }
}

/** The `>` ending the tag whose name starts at `from`, outside quoted attribute values; -1 if not there yet. */
function tagEnd(b: string, from: number): number {
  let quote = '';
  for (let i = from; i < b.length; i++) {
    const c = b[i];
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '>') return i;
    else if (c === '<') throw malformed('a < inside a tag');
  }
  return -1;
}

/**
 * Text with its references replaced; a named one that is not predefined fails (mammoth's parser
 * failed on it too), an `&` that starts no reference stays as written (its parser let it be).
 */
function decode(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&([^;&\s<]*)(;?)/g, (whole: string, name: string, semicolon: string) => {
    if (!semicolon) return whole;
    if (name.startsWith('#')) {
      const code = name[1] === 'x' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      if (!Number.isInteger(code) || code < 0 || code > 0x10ffff || !/^#(x[0-9a-fA-F]+|[0-9]+)$/.test(name))
        throw malformed(`the reference &${name};`);
      return String.fromCodePoint(code);
    }
    const value = ENTITIES[name];
    if (value === undefined) throw malformed(`the entity &${name}; is not defined`);
    return value;
  });
}
