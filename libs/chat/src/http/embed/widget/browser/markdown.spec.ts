import { describe, expect, it } from 'vitest';
import { parseInline, parseMarkdown } from './markdown.js';

describe('the widget’s Markdown', () => {
  it('renders the usual blocks and spans', () => {
    expect(parseMarkdown('# Title\n\nSome **bold** and *it* with `code`.\n\n- one\n- two\n\n1. first')).toEqual([
      { tag: 'h3', children: ['Title'] },
      {
        tag: 'p',
        children: [
          'Some ',
          { tag: 'strong', children: ['bold'] },
          ' and ',
          { tag: 'em', children: ['it'] },
          ' with ',
          { tag: 'code', children: ['code'] },
          '.',
        ],
      },
      {
        tag: 'ul',
        children: [
          { tag: 'li', children: ['one'] },
          { tag: 'li', children: ['two'] },
        ],
      },
      { tag: 'ol', children: [{ tag: 'li', children: ['first'] }] },
    ]);
    expect(parseMarkdown('```\nconst a = "<b>";\n```')).toEqual([
      { tag: 'pre', children: [{ tag: 'code', children: ['const a = "<b>";'] }] },
    ]);
  });

  it('keeps HTML as text and links only to http(s) and mailto', () => {
    expect(parseMarkdown('<img src=x onerror=alert(1)>')).toEqual([
      { tag: 'p', children: ['<img src=x onerror=alert(1)>'] },
    ]);
    expect(parseInline('[site](https://example.com)')).toEqual([
      { tag: 'a', href: 'https://example.com', children: ['site'] },
    ]);
    expect(parseInline('[x](javascript:alert(1))')).toEqual(['[x](javascript:alert(1)', ')']);
  });
});
