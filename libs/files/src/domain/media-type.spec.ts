import { describe, expect, it } from 'vitest';
import { declaredMediaType, MEDIA_TYPE } from './media-type.js';

describe('MEDIA_TYPE', () => {
  it('takes type/subtype with optional parameters, tokens or quoted strings', () => {
    for (const value of [
      'text/plain',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      'image/svg+xml',
      'text/plain; charset=utf-8',
      'text/plain;charset="utf-8"; format=flowed',
      'multipart/form-data; boundary="a b;c"',
    ])
      expect(value).toMatch(MEDIA_TYPE);
  });

  it('refuses CR/LF, controls, spaces inside tokens and what is not type/subtype', () => {
    for (const value of [
      'text/plain\r\nX-Inj: 1',
      'text/plain\n',
      'text/pl\u0000ain',
      'text /plain',
      'text',
      'text/',
      '/plain',
      'text/plain; charset',
      'text/plain; a=b c',
      'téxt/plain',
      '',
    ])
      expect(value).not.toMatch(MEDIA_TYPE);
  });
});

describe('declaredMediaType', () => {
  it('keeps a media type and drops anything else', () => {
    expect(declaredMediaType('application/pdf')).toBe('application/pdf');
    expect(declaredMediaType('text/plain\r\nX-Inj: 1')).toBe('');
    expect(declaredMediaType(`text/${'x'.repeat(300)}`)).toBe('');
  });
});
