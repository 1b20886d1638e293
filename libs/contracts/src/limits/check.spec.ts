import { create } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import {
  CreateCollectionRequestSchema,
  CreateFragmentRequestSchema,
  GetFragmentRequestSchema,
  UpdateFragmentRequestSchema,
} from '../gen/kw/fragments/v1/fragments_pb.js';
import { charCount, cutText, limitViolations, utf8Bytes } from './check.js';
import { CREATED_VIA, FRAGMENT_CONTENT_MAX_BYTES } from './fragments.js';
import { MESSAGE_LIMITS, limitsFor } from './rules.js';

const CREATE = CreateFragmentRequestSchema.typeName;
const valid = () =>
  create(CreateFragmentRequestSchema, {
    workspaceId: 'w',
    fragmentTypeId: 't',
    title: 'A title',
    content: 'Some content',
    tags: ['a', 'b'],
    createdVia: 'mcp',
    key: 'k',
  });

describe('limitViolations', () => {
  it('passes a message within its limits, and one whose type has no rules', () => {
    expect(limitViolations(CREATE, valid())).toEqual([]);
    expect(limitsFor(GetFragmentRequestSchema.typeName)).toBeUndefined();
    expect(limitViolations(GetFragmentRequestSchema.typeName, { fragmentId: 'x'.repeat(10_000) })).toEqual([]);
  });

  it('maxChars: at the limit passes, one more is refused in class-validator words', () => {
    expect(limitViolations(CREATE, { ...valid(), title: 'x'.repeat(500) })).toEqual([]);
    expect(limitViolations(CREATE, { ...valid(), title: 'x'.repeat(501) })).toEqual([
      { field: 'title', problems: ['title must be shorter than or equal to 500 characters'] },
    ]);
  });

  it('maxChars counts characters as the REST edge does (a surrogate pair is one)', () => {
    const emoji = '\u{1F600}';
    expect(charCount(emoji)).toBe(1);
    expect(charCount('e\uFE0F')).toBe(1);
    expect(limitViolations(CREATE, { ...valid(), title: emoji.repeat(500) })).toEqual([]);
    expect(limitViolations(CREATE, { ...valid(), title: emoji.repeat(501) })[0]?.field).toBe('title');
  });

  it('maxBytes counts UTF-8 bytes, not characters', () => {
    expect(utf8Bytes('aé€\u{1F600}')).toBe(1 + 2 + 3 + 4);
    expect(utf8Bytes('\uD800x')).toBe(Buffer.byteLength('\uD800x', 'utf8'));
    for (const s of ['plain', 'é'.repeat(7), '\u{1F600}\uDC00\uD800', '中文 mixed ✓'])
      expect(utf8Bytes(s)).toBe(Buffer.byteLength(s, 'utf8'));
    const atLimit = 'a'.repeat(FRAGMENT_CONTENT_MAX_BYTES);
    expect(limitViolations(CREATE, { ...valid(), content: atLimit })).toEqual([]);
    // Half as many characters as bytes: within a character count, over the byte limit.
    const twoByte = 'é'.repeat(FRAGMENT_CONTENT_MAX_BYTES / 2 + 1);
    expect(limitViolations(CREATE, { ...valid(), content: twoByte })).toEqual([
      { field: 'content', problems: [`must be at most ${FRAGMENT_CONTENT_MAX_BYTES} bytes`] },
    ]);
  });

  it('maxItems and eachMaxChars on a repeated field', () => {
    expect(limitViolations(CREATE, { ...valid(), tags: Array.from({ length: 50 }, (_, i) => `t${i}`) })).toEqual([]);
    expect(limitViolations(CREATE, { ...valid(), tags: Array.from({ length: 51 }, (_, i) => `t${i}`) })).toEqual([
      { field: 'tags', problems: ['tags must contain no more than 50 elements'] },
    ]);
    expect(limitViolations(CREATE, { ...valid(), tags: ['ok', 'x'.repeat(101)] })).toEqual([
      { field: 'tags', problems: ['each value in tags must be shorter than or equal to 100 characters'] },
    ]);
  });

  it('oneOf: a listed value or empty (not given) passes, anything else is refused', () => {
    for (const createdVia of [...CREATED_VIA, ''])
      expect(limitViolations(CREATE, { ...valid(), createdVia })).toEqual([]);
    expect(limitViolations(CREATE, { ...valid(), createdVia: 'leaf' })).toEqual([
      {
        field: 'createdVia',
        problems: ['createdVia must be one of the following values: api, mcp, import, web, agent, chat, integration'],
      },
    ]);
  });

  it('notBlank: a title of white space only is refused, as the REST DTOs refuse it; unset passes', () => {
    expect(limitViolations(CREATE, { ...valid(), title: ' \t\n ' })).toEqual([
      { field: 'title', problems: ['title must not be blank'] },
    ]);
    expect(limitViolations(CREATE, { ...valid(), title: ' a ' })).toEqual([]);
    const update = UpdateFragmentRequestSchema.typeName;
    expect(limitViolations(update, create(UpdateFragmentRequestSchema, { fragmentId: 'f' }))).toEqual([]);
    expect(limitViolations(update, create(UpdateFragmentRequestSchema, { fragmentId: 'f', title: '  ' }))).toEqual([
      { field: 'title', problems: ['title must not be blank'] },
    ]);
  });

  it('skips unset optional fields and reports every refused field in rule order', () => {
    const update = create(UpdateFragmentRequestSchema, { fragmentId: 'f' });
    expect(limitViolations(UpdateFragmentRequestSchema.typeName, update)).toEqual([]);
    const bad = create(UpdateFragmentRequestSchema, { fragmentId: 'f', key: 'k'.repeat(501), title: 't'.repeat(501) });
    expect(limitViolations(UpdateFragmentRequestSchema.typeName, bad).map((v) => v.field)).toEqual(['title', 'key']);
  });

  it('covers collections too', () => {
    const input = create(CreateCollectionRequestSchema, { workspaceId: 'w', name: 'n'.repeat(201) });
    expect(limitViolations(CreateCollectionRequestSchema.typeName, input)).toEqual([
      { field: 'name', problems: ['name must be shorter than or equal to 200 characters'] },
    ]);
  });

  it('names only fields the messages have', () => {
    for (const { schema, fields } of MESSAGE_LIMITS) {
      const known = schema.fields.map((f) => f.localName);
      for (const field of Object.keys(fields)) expect(known, `${schema.typeName}.${field}`).toContain(field);
    }
  });
});

describe('cutText', () => {
  it('keeps at most max UTF-16 units and never ends inside a surrogate pair', () => {
    expect(cutText('abc', 5)).toBe('abc');
    expect(cutText('abcdef', 3)).toBe('abc');
    expect(cutText('a🙂🙂', 2)).toBe('a');
    expect(cutText('a🙂🙂', 3)).toBe('a🙂');
    expect(cutText(`a${'🙂'.repeat(300)}`, 280)).toBe(`a${'🙂'.repeat(139)}`);
  });
});
