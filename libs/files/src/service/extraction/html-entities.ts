/** The named entities that show up in real documents; an unknown one is left as written. */
const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  shy: '',
  copy: '©',
  reg: '®',
  trade: '™',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  lsquo: '‘',
  rsquo: '’',
  sbquo: '‚',
  ldquo: '“',
  rdquo: '”',
  bdquo: '„',
  laquo: '«',
  raquo: '»',
  bull: '•',
  middot: '·',
  deg: '°',
  euro: '€',
  pound: '£',
  yen: '¥',
  cent: '¢',
  sect: '§',
  para: '¶',
  times: '×',
  divide: '÷',
  plusmn: '±',
  szlig: 'ß',
  aelig: 'æ',
  AElig: 'Æ',
  oslash: 'ø',
  Oslash: 'Ø',
  eth: 'ð',
  thorn: 'þ',
};
/** Accented letters are a letter and a combining mark: `&eacute;` is e + U+0301, composed. */
const MARKS: Record<string, string> = {
  acute: '\u0301',
  grave: '\u0300',
  circ: '\u0302',
  tilde: '\u0303',
  uml: '\u0308',
  ring: '\u030a',
  cedil: '\u0327',
};
const ACCENTED = /^([a-zA-Z])(acute|grave|circ|tilde|uml|ring|cedil)$/;
const ENTITY = /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([a-zA-Z][a-zA-Z0-9]{1,31}));/g;

export function decodeHtmlEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(ENTITY, (entity, decimal?: string, hex?: string, name?: string) => {
    if (name === undefined) return codePoint(decimal ? Number.parseInt(decimal, 10) : Number.parseInt(hex!, 16));
    if (Object.hasOwn(NAMED, name)) return NAMED[name];
    const accented = ACCENTED.exec(name);
    return accented ? (accented[1] + MARKS[accented[2]]).normalize('NFC') : entity;
  });
}

/** As browsers do: NUL, surrogates and numbers past Unicode become U+FFFD. */
function codePoint(value: number): string {
  const valid = value > 0 && value <= 0x10ffff && (value < 0xd800 || value > 0xdfff);
  return String.fromCodePoint(valid ? value : 0xfffd);
}
