import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeHtmlEntities } from './html-entities.js';
import { htmlText } from './html-text.js';

describe('htmlText', () => {
  it('keeps the visible text of the sample, one block a line', () => {
    const html = readFileSync(new URL('../../../../../test/fixtures/files/sample.html', import.meta.url), 'utf8');
    expect(htmlText(html)).toBe(
      [
        'HTML sample',
        'Heading of the sample',
        'The distinctive word is marmalith, in a paragraph.',
        'Café & crème — 😀 <script> stays text',
        'first item',
        'second item',
      ].join('\n\n'),
    );
  });

  it('drops scripts, styles, comments and declarations, whatever they contain', () => {
    const html =
      '<!DOCTYPE html><?xml-stylesheet href="x"?><![CDATA[cdata]]>' +
      '<script type="module">if (a < b && "</div>") {}</script>' +
      '<STYLE>p > a { color: red }</STYLE><noscript>enable js</noscript>' +
      '<template><p>later</p></template><!-- <p>comment</p> -->visible';
    expect(htmlText(html)).toBe('visible');
  });

  it('skips quoted attribute values that contain > but not stray quotes', () => {
    expect(htmlText('<a title="x > y" href=\'>\'>link</a> after')).toBe('link after');
    expect(htmlText('<p class=x">text</p>')).toBe('text');
  });

  it('breaks lines at blocks and <br>, spaces cells, joins inline elements', () => {
    expect(htmlText('<div>one<br>two</div><p>th<b>re</b>e</p><table><tr><td>a</td><td>b</td></tr></table>')).toBe(
      'one\ntwo\n\nthree\n\na b',
    );
  });

  it('treats source line breaks as spaces, except inside <pre>', () => {
    expect(htmlText('<p>a\n  wrapped\n line</p>')).toBe('a wrapped line');
    expect(htmlText('<pre>line 1\nline 2</pre>')).toBe('line 1\nline 2');
  });

  it('survives broken markup: lone <, unclosed tags, comments and scripts', () => {
    expect(htmlText('1 < 2 and 3 <4')).toBe('1 < 2 and 3 <4');
    expect(htmlText('text <b unclosed')).toBe('text');
    expect(htmlText('before <!-- never closed <p>hidden</p>')).toBe('before');
    expect(htmlText('before <script>alert(1)')).toBe('before');
    expect(htmlText('<p title="never closed>text')).toBe('');
  });

  it('gets through pathological markup in one pass', () => {
    const hostile = '<a '.repeat(50_000) + '<!--'.repeat(50_000) + '<p x='.repeat(50_000) + '&#'.repeat(50_000);
    expect(typeof htmlText(hostile)).toBe('string');
    expect(htmlText(`${'<div>'.repeat(100_000)}deep${'</div>'.repeat(100_000)}`)).toBe('deep');
  });
});

describe('decodeHtmlEntities', () => {
  it('decodes named, accented, decimal and hexadecimal entities', () => {
    expect(decodeHtmlEntities('&lt;a&gt; &amp;amp; &quot;q&quot; &apos;s&apos; &hellip;&nbsp;&euro;')).toBe(
      '<a> &amp; "q" \'s\' …\u00a0€',
    );
    expect(decodeHtmlEntities('&Eacute;l&egrave;ve &uuml;ber &ccedil;a &Aring; &ntilde; &szlig;')).toBe(
      'Élève über ça Å ñ ß',
    );
    expect(decodeHtmlEntities('&#65;&#x42;&#X63;&#128512;')).toBe('ABc😀');
  });

  it('leaves unknown entities as written and makes invalid code points U+FFFD', () => {
    expect(decodeHtmlEntities('&unknown; &amp &constructor; &toString;')).toBe(
      '&unknown; &amp &constructor; &toString;',
    );
    expect(decodeHtmlEntities('&#0;&#xD800;&#x110000;&#9999999;')).toBe('\ufffd'.repeat(4));
  });
});
