import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contentDisposition, FILE_NAME_MAX_BYTES, safeFileName } from './file-name.js';

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
/** What a header value may hold: visible ASCII and spaces, never CR, LF or another control. */
const HEADER =
  /^(attachment|inline); filename="[\x20\x21\x23-\x5b\x5d-\x7e]*"; filename\*=UTF-8''[A-Za-z0-9!#$&+\-.^_`|~%]+$/;

describe('safeFileName', () => {
  it('keeps only the last path component, whichever the separator', () => {
    expect(safeFileName('../../etc/passwd')).toBe('passwd');
    expect(safeFileName('..\\..\\Windows\\win.ini')).toBe('win.ini');
    expect(safeFileName('C:\\Users\\me\\report.pdf')).toBe('report.pdf');
    expect(safeFileName('a/b\\c/d.txt')).toBe('d.txt');
    expect(safeFileName('folder/')).toBe('file');
  });

  it('removes NUL, CR/LF, other controls and direction overrides', () => {
    expect(safeFileName('evil\u0000.pdf')).toBe('evil.pdf');
    expect(safeFileName('a\r\nSet-Cookie: x=1.txt')).toBe('aSet-Cookie: x=1.txt');
    expect(safeFileName('bell\u0007\u001b[31m\u007f\u0085.txt')).toBe('bell[31m.txt');
    expect(safeFileName('invoice\u202Efdp.exe')).toBe('invoicefdp.exe');
  });

  it('removes zero-width, invisible and direction characters, so a name looks like what it is', () => {
    expect(safeFileName('pay\u200bpal.txt')).toBe('paypal.txt');
    expect(safeFileName('\ufeffreport.pdf')).toBe('report.pdf');
    expect(safeFileName('a\u200d\u2060b\u061c.txt')).toBe('ab.txt');
    // The zero-width non-joiner spells Persian and Indic words: kept.
    expect(safeFileName('\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645.txt')).toBe(
      '\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645.txt',
    );
    expect(safeFileName('doc\u2066\u2067\u2068\u2069\u202a\u202b\u202c\u202d.pdf')).toBe('doc.pdf');
    expect(safeFileName('\u200b\ufeff')).toBe('file');
    // A joiner inside an emoji sequence is part of what is shown, and stays.
    expect(safeFileName('👩\u200d💻 notes\u200d.txt')).toBe('👩\u200d💻 notes.txt');
  });

  it('removes every default-ignorable character, keeping those an emoji, a keycap or a flag shows', () => {
    for (const invisible of [
      '\u00ad',
      '\u034f',
      '\u115f',
      '\u17b4',
      '\u180e',
      '\u2061',
      '\u2064',
      '\u206a',
      '\u206f',
      '\u3164',
      '\uffa0',
      '\ufff9',
      '\ufffb',
      '\u{e0041}',
      '\u{e0001}',
      '\u{1d173}',
      '\u{1bca0}',
      '\ufe0f',
    ])
      expect(safeFileName(`pay${invisible}pal.txt`), invisible.codePointAt(0)!.toString(16)).toBe('paypal.txt');
    const shown = [
      '\u2764\ufe0f notes.txt', // a red heart, emoji presentation
      '1\ufe0f\u20e3 first.txt', // a keycap
      '\u{1f3f4}\u{e0067}\u{e0062}\u{e0065}\u{e006e}\u{e0067}\u{e007f} team.txt', // the flag of England
      '\u845b\u{e0100}\u57ce.txt', // a CJK ideograph's variant
    ];
    for (const name of shown) expect(safeFileName(name)).toBe(name);
    // Outside a flag, tag characters are invisible.
    expect(safeFileName('a\u{e0067}\u{e007f}b.txt')).toBe('ab.txt');
  });

  it('prefixes Windows device names with `_`, with or without an extension, in any case', () => {
    for (const name of [
      'CON',
      'con.txt',
      'Aux',
      'aux.tar.gz',
      'NUL',
      'prn.pdf',
      'COM1.log',
      'lpt9',
      'COM\u00b9.txt',
      'CON .txt',
    ])
      expect(safeFileName(name), name).toBe(`_${name}`);
    for (const name of ['CONSOLE.txt', 'con-notes.txt', 'COM0', 'LPT10.txt', 'my con.txt', 'auxiliary'])
      expect(safeFileName(name), name).toBe(name);
    expect(safeFileName('../../aux')).toBe('_aux');
    expect(safeFileName('.nul')).toBe('_nul');
  });

  it('removes the leading dots of hidden files and of `..`', () => {
    expect(safeFileName('.bashrc')).toBe('bashrc');
    expect(safeFileName('..')).toBe('file');
    expect(safeFileName('...')).toBe('file');
    expect(safeFileName(' . .hidden.txt')).toBe('hidden.txt');
    expect(safeFileName('notes.v2.txt')).toBe('notes.v2.txt');
  });

  it('collapses whitespace and trims', () => {
    expect(safeFileName('  my \t\t annual\u00a0 report .pdf  ')).toBe('my annual report .pdf');
  });

  it('falls back to `file` when nothing is left', () => {
    for (const input of ['', '   ', '\u0000\u0000', '/', '../..', '\u202e']) expect(safeFileName(input)).toBe('file');
  });

  it('cuts a 1,000-character name to 255 bytes and keeps its extension', () => {
    const name = safeFileName(`${'a'.repeat(1000)}.pdf`);
    expect(name).toBe(`${'a'.repeat(251)}.pdf`);
    expect(bytes(name)).toBe(FILE_NAME_MAX_BYTES);
  });

  it('cuts multi-byte names between characters, by UTF-8 bytes', () => {
    const cjk = safeFileName(`${'文'.repeat(200)}.docx`); // 3 bytes each
    expect(cjk).toBe(`${'文'.repeat(83)}.docx`);
    expect(bytes(cjk)).toBeLessThanOrEqual(FILE_NAME_MAX_BYTES);

    const family = '👩‍👩‍👧‍👦'; // one grapheme of 25 bytes: never split
    const emoji = safeFileName(`${family.repeat(20)}.txt`);
    expect(emoji).toBe(`${family.repeat(10)}.txt`);
    expect(emoji).not.toContain('\ufffd');
  });

  it('cuts a name without a usable extension as a whole', () => {
    expect(safeFileName('x'.repeat(1000))).toBe('x'.repeat(255));
    const longTail = safeFileName(`a.${'b'.repeat(1000)}`);
    expect(longTail).toBe(`a.${'b'.repeat(253)}`);
  });

  it('cuts one giant grapheme (stacked combining marks) between code points rather than dropping it', () => {
    const zalgo = `a${'\u0301'.repeat(500)}.txt`;
    const name = safeFileName(zalgo);
    expect(name.startsWith('\u00e1\u0301')).toBe(true); // NFC composed the first mark into the letter
    expect(name.endsWith('.txt')).toBe(true);
    expect(bytes(name)).toBeLessThanOrEqual(FILE_NAME_MAX_BYTES);
  });

  it('keeps emoji and CJK names that fit, composed (NFC)', () => {
    expect(safeFileName('報告書 📄.pdf')).toBe('報告書 📄.pdf');
    expect(safeFileName('Cafe\u0301.txt')).toBe('Café.txt');
    expect(safeFileName('bad\ud800half.txt')).toBe('bad\ufffdhalf.txt');
  });

  it('always gives a short, visible, non-hidden name without separators (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 600 }), (input) => {
        const name = safeFileName(input);
        expect(name.length).toBeGreaterThan(0);
        expect(bytes(name)).toBeLessThanOrEqual(FILE_NAME_MAX_BYTES);
        expect(name).not.toMatch(/[/\\\u0000-\u001f\u007f]/);
        expect(name.startsWith('.')).toBe(false);
        expect(name).not.toMatch(/[\u200b\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/);
        expect(name.split('.')[0].trimEnd()).not.toMatch(/^(CON|PRN|AUX|NUL|COM[1-9]|LPT[1-9])$/i);
        expect(name).toBe(name.trim());
        expect(safeFileName(name)).toBe(name);
      }),
    );
  });
});

describe('contentDisposition', () => {
  it('gives an ASCII fallback and the exact UTF-8 name', () => {
    expect(contentDisposition('report.pdf', 'attachment')).toBe(
      `attachment; filename="report.pdf"; filename*=UTF-8''report.pdf`,
    );
    expect(contentDisposition('Résumé 2024.pdf', 'inline')).toBe(
      `inline; filename="Resume 2024.pdf"; filename*=UTF-8''R%C3%A9sum%C3%A9%202024.pdf`,
    );
    expect(contentDisposition('報告 📄.txt', 'attachment')).toBe(
      `attachment; filename="__ _.txt"; filename*=UTF-8''%E5%A0%B1%E5%91%8A%20%F0%9F%93%84.txt`,
    );
  });

  it('gives the ASCII fallback the device-name rule of stored names', () => {
    expect(contentDisposition('\uff43\uff4f\uff4e.txt', 'attachment')).toBe(
      `attachment; filename="_con.txt"; filename*=UTF-8''%EF%BD%83%EF%BD%8F%EF%BD%8E.txt`,
    );
    expect(contentDisposition('COM\u00b9.log', 'attachment')).toContain('filename="_COM1.log"');
  });

  it('cannot be escaped with quotes, backslashes or percent signs', () => {
    const header = contentDisposition(`a"b%41'(d)*.txt`, 'attachment');
    expect(header).toBe(`attachment; filename="a_b_41'(d)*.txt"; filename*=UTF-8''a%22b%2541%27%28d%29%2A.txt`);
    expect(header).toMatch(HEADER);
    // a backslash is a path separator to safeFileName: what precedes it is gone
    expect(contentDisposition('a\\"b.txt', 'inline')).toBe(`inline; filename="_b.txt"; filename*=UTF-8''%22b.txt`);
  });

  it('makes header injection impossible: CR/LF and controls never reach the value', () => {
    const header = contentDisposition('x.txt"\r\nSet-Cookie: session=stolen\r\n\r\n<script>', 'attachment');
    expect(header).not.toMatch(/[\r\n]/);
    expect(header).toMatch(HEADER);
    expect(header).toContain('filename="x.txt_Set-Cookie: session=stolen<script>"');
  });

  it('only ever says attachment or inline', () => {
    const forged = 'inline; filename=evil' as 'inline';
    expect(contentDisposition('a.txt', forged)).toMatch(/^attachment; /);
  });

  it('is a valid header whose filename* decodes to the safe name, for any input (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 300 }),
        fc.constantFrom('attachment', 'inline'),
        (input, type) => {
          const header = contentDisposition(input, type as 'attachment' | 'inline');
          expect(header).toMatch(HEADER);
          expect(decodeURIComponent(header.split("filename*=UTF-8''")[1])).toBe(safeFileName(input));
        },
      ),
    );
  });
});
