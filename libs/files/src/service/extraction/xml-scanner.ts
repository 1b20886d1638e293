import sax from 'sax';
import { ExtractionError } from './extraction-errors.js';

/** What an XmlScanner reports, in document order; element names resolved to their namespace. */
export interface XmlHandler {
  start(namespace: string, name: string, attributes: ReadonlyMap<string, string>): void;
  end(namespace: string, name: string): void;
  /** Character data (references decoded), possibly in several pieces. */
  text(text: string): void;
}

/** sax's strict errors that mammoth's parser passed over: a bare `&`, an undeclared prefix. */
const LENIENT = ['Invalid character in entity name', 'Unbound namespace prefix'];

const malformed = (detail: string) => new ExtractionError('malformed', `The XML is malformed: ${detail}.`);

/**
 * A streaming XML reader for the parts of Office documents, over `sax` (strict, with
 * namespaces): text goes in as it is inflated, in pieces of any size, and elements and text come
 * out as they complete, so memory holds one piece, sax's bounded buffers and the open elements,
 * never the document. Any XML error fails `malformed`, and so does a DOCTYPE (where entity bombs
 * live; sax would not expand its entities, but no Word part has one). CDATA is skipped, as
 * mammoth's reader skipped it; a bare `&` and an undeclared prefix are passed over, as its
 * parser passed over them.
 */
export class XmlScanner {
  private readonly parser = sax.parser(true, { xmlns: true, position: false });
  /** The open elements' resolved names: sax's close event gives only the prefixed one. */
  private readonly open: [namespace: string, name: string][] = [];

  constructor(handler: XmlHandler) {
    const p = this.parser;
    p.onopentag = (tag) => {
      const node = tag as sax.QualifiedTag;
      const attributes = new Map<string, string>();
      for (const [name, attribute] of Object.entries(node.attributes)) attributes.set(name, attribute.value);
      this.open.push([node.uri, node.local]);
      handler.start(node.uri, node.local, attributes);
    };
    p.onclosetag = () => {
      const [namespace, name] = this.open.pop()!;
      handler.end(namespace, name);
    };
    p.ontext = (text) => {
      if (this.open.length) handler.text(text);
    };
    p.ondoctype = () => {
      throw malformed('a DOCTYPE');
    };
    p.onerror = (error) => {
      const message = error.message.split('\n')[0];
      // Where mammoth's parser let it be, so does this: the `&` stays as written, and an element
      // under an undeclared prefix names no namespace known here (the body reader skips it).
      if (LENIENT.some((start) => message.startsWith(start))) return void p.resume();
      throw malformed(message);
    };
  }

  write(piece: string): void {
    this.parser.write(piece);
  }

  /** After the last piece: what is left must be complete, and every element closed. */
  end(): void {
    this.parser.close();
    if (this.open.length) throw malformed(`<${this.open.at(-1)![1]}> is not closed`);
  }
}
