import 'reflect-metadata';
import { create } from '@bufbuild/protobuf';
import { ArrayMaxSize, IsArray, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { describe, expect, it } from 'vitest';
import {
  CREATED_VIA,
  CreateFragmentRequestSchema,
  FRAGMENT_TAG_MAX,
  FRAGMENT_TAGS_MAX,
  FRAGMENT_TITLE_MAX,
  GetFragmentRequestSchema,
} from '@kw/contracts';
import { AppError } from '@kw/platform-errors';
import { createValidationPipe } from '../../http/src/validation.js';
import { checkLimits } from './check-limits.js';

/** The limit decorators of the REST edge's CreateFragmentDto (libs/fragments/src/http/dto), for comparison. */
class CreateFragmentLimitsDto {
  @IsString() @MaxLength(FRAGMENT_TITLE_MAX) title!: string;
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(FRAGMENT_TAGS_MAX)
  @IsString({ each: true })
  @MaxLength(FRAGMENT_TAG_MAX, { each: true })
  tags?: string[];
  @IsOptional() @IsIn(CREATED_VIA) createdVia?: string;
}

async function restRefusal(body: Record<string, unknown>): Promise<AppError> {
  try {
    await createValidationPipe().transform(body, { type: 'body', metatype: CreateFragmentLimitsDto, data: '' });
  } catch (err) {
    if (AppError.isAppError(err)) return err;
    throw err;
  }
  throw new Error('expected the REST edge to refuse');
}

function serviceRefusal(fields: { title: string; tags: string[]; createdVia: string }): AppError {
  const input = create(CreateFragmentRequestSchema, { workspaceId: 'w', fragmentTypeId: 't', content: 'c', ...fields });
  try {
    checkLimits(CreateFragmentRequestSchema, input);
  } catch (err) {
    if (AppError.isAppError(err)) return err;
    throw err;
  }
  throw new Error('expected checkLimits to refuse');
}

const ok = { title: 'A title', tags: ['a'], createdVia: 'mcp' };

describe('checkLimits', () => {
  it('passes a message within its limits and a message without rules', () => {
    const input = create(CreateFragmentRequestSchema, { workspaceId: 'w', fragmentTypeId: 't', content: 'c', ...ok });
    expect(() => checkLimits(CreateFragmentRequestSchema, input)).not.toThrow();
    const get = create(GetFragmentRequestSchema, { fragmentId: 'x'.repeat(5_000) });
    expect(() => checkLimits(GetFragmentRequestSchema, get)).not.toThrow();
  });

  it.each([
    ['a 501-character title', { ...ok, title: 'x'.repeat(501) }],
    ['51 tags', { ...ok, tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }],
    ['a 101-character tag', { ...ok, tags: ['x'.repeat(101)] }],
    ['an unknown createdVia', { ...ok, createdVia: 'leaf' }],
    ['several refused fields', { title: 'x'.repeat(501), tags: ['x'.repeat(101)], createdVia: 'leaf' }],
  ])('refuses %s exactly as the REST edge does', async (_, fields) => {
    const rest = await restRefusal(fields);
    const service = serviceRefusal(fields);
    expect(service.toJSON()).toEqual(rest.toJSON());
    expect(service.status).toBe(400);
    expect(service.code).toBe('VALIDATION_FAILED');
  });
});
