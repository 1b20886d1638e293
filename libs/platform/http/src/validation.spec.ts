import 'reflect-metadata';
import { IsEmail, IsInt, IsString, IsUUID, Max, MaxLength, Min } from 'class-validator';
import { describe, expect, it } from 'vitest';
import { AppError } from '@kw/platform-errors';
import { createValidationPipe } from './validation.js';

class InviteDto {
  @IsEmail() email!: string;
  @IsUUID() workspaceId!: string;
}

class PlanDto {
  @IsString() @MaxLength(63) planId!: string;
  @IsInt() @Min(1) @Max(100) max!: number;
}

const body = { type: 'body' as const, metatype: InviteDto, data: '' };

async function refusal(value: unknown, metatype: new () => object = InviteDto): Promise<AppError> {
  try {
    await createValidationPipe().transform(value, { ...body, metatype });
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

  it('names only the type of a value of the wrong type, not the rules that cannot apply to it', async () => {
    const err = await refusal({ planId: 5, max: '3' }, PlanDto);
    expect(err.details?.fields).toEqual([
      { field: 'planId', problems: ['planId must be a string'] },
      { field: 'max', problems: ['max must be an integer number'] },
    ]);
    // A value of the right type still hears every rule it breaks.
    const tooBig = await refusal({ planId: 'x'.repeat(64), max: 1000 }, PlanDto);
    expect(tooBig.details?.fields).toEqual([
      { field: 'planId', problems: ['planId must be shorter than or equal to 63 characters'] },
      { field: 'max', problems: ['max must not be greater than 100'] },
    ]);
  });
});
