import 'reflect-metadata';
import { IsEmail, IsUUID } from 'class-validator';
import { describe, expect, it } from 'vitest';
import { AppError } from '@kw/platform-errors';
import { createValidationPipe } from './validation.js';

class InviteDto {
  @IsEmail() email!: string;
  @IsUUID() workspaceId!: string;
}

const body = { type: 'body' as const, metatype: InviteDto, data: '' };

async function refusal(value: unknown): Promise<AppError> {
  try {
    await createValidationPipe().transform(value, body);
  } catch (err) {
    if (AppError.isAppError(err)) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('validation pipe', () => {
  it('answers 400 when a validator throws on hostile text (validator.js isEmail throws URIError)', async () => {
    const err = await refusal({ email: '\ud800 x', workspaceId: '00000000-0000-4000-8000-000000000000' });
    expect(err.status).toBe(400);
    expect(err.code).toBe('VALIDATION_FAILED');
  });

  it('says a missing field is required, and a malformed one what it must be', async () => {
    const err = await refusal({ email: 'not an email' });
    expect(err.details?.fields).toEqual([
      { field: 'email', problems: ['email must be an email'] },
      { field: 'workspaceId', problems: ['is required'] },
    ]);
  });
});
