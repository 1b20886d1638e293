import 'reflect-metadata';
import { Body, Controller, Get, Module, Post, Query } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { describe, expect, it } from 'vitest';
import { AppError } from '@kw/platform-errors';
import { OptionalInt } from './optional-int.js';
import { createValidationPipe } from './validation.js';

class PageQuery {
  @OptionalInt({ min: 1, max: 50, default: 20, from: 'query' }) limit?: number;
}

class OffsetQuery {
  @OptionalInt({ min: 0, max: 1000, from: 'query' }) offset?: number;
}

class PageBody {
  @OptionalInt({ min: 1, max: 3, default: 1, description: 'Hops from the start', from: 'body' }) depth?: number;
}

const pipe = createValidationPipe();
const accept = (metatype: new () => object, value: object, type: 'query' | 'body' = 'query') =>
  pipe.transform(value, { type, metatype });

/** The problems a caller reads in the 400 answer, by field. */
async function problems(metatype: new () => object, value: object, type: 'query' | 'body' = 'query') {
  try {
    await accept(metatype, value, type);
  } catch (err) {
    if (!AppError.isAppError(err)) throw err;
    expect(err.status).toBe(400);
    expect(err.code).toBe('VALIDATION_FAILED');
    return err.details?.fields;
  }
  throw new Error('expected a refusal');
}

describe('OptionalInt', () => {
  it('converts a query value within its bounds to a number', async () => {
    expect(await accept(PageQuery, { limit: '7' })).toEqual({ limit: 7 });
    expect(await accept(PageQuery, { limit: '50' })).toEqual({ limit: 50 });
  });

  it('leaves an absent value absent (the handler applies the default)', async () => {
    expect(await accept(PageQuery, {})).toEqual({});
  });

  it('refuses a value out of bounds, naming the bound', async () => {
    expect(await problems(PageQuery, { limit: '0' })).toEqual([
      { field: 'limit', problems: ['limit must not be less than 1'] },
    ]);
    expect(await problems(PageQuery, { limit: '51' })).toEqual([
      { field: 'limit', problems: ['limit must not be greater than 50'] },
    ]);
  });

  it('refuses what is not an integer', async () => {
    for (const limit of ['1.5', 'abc', ['2', '3']])
      expect(await problems(PageQuery, { limit })).toEqual([
        { field: 'limit', problems: ['limit must be an integer number'] },
      ]);
  });

  it('reads a query value from decimal digits only, never as Number() would', async () => {
    expect(await accept(OffsetQuery, { offset: '007' })).toEqual({ offset: 7 });
    expect(await accept(OffsetQuery, { offset: '0' })).toEqual({ offset: 0 });
    for (const offset of [' 2', '2 ', '1e1', '0x10', '+3', '2.0', '', '-0', '- 1', 'Infinity'])
      expect(await problems(OffsetQuery, { offset })).toEqual([
        { field: 'offset', problems: ['offset must be an integer number'] },
      ]);
    // A negative integer is one: what is wrong is its range.
    expect(await problems(OffsetQuery, { offset: '-1' })).toEqual([
      { field: 'offset', problems: ['offset must not be less than 0'] },
    ]);
    expect(await problems(PageQuery, { limit: '1e1' })).toEqual([
      { field: 'limit', problems: ['limit must be an integer number'] },
    ]);
  });

  it('takes a body value as the JSON number it is, never from text', async () => {
    expect(await accept(PageBody, { depth: 2 }, 'body')).toEqual({ depth: 2 });
    expect(await accept(PageBody, {}, 'body')).toEqual({});
    expect(await problems(PageBody, { depth: '2' }, 'body')).toEqual([
      { field: 'depth', problems: ['depth must be an integer number'] },
    ]);
    expect(await problems(PageBody, { depth: 4 }, 'body')).toEqual([
      { field: 'depth', problems: ['depth must not be greater than 3'] },
    ]);
  });

  it('documents an optional integer with its bounds, default and description', async () => {
    @Controller('pages')
    class PagesController {
      @Get() list(@Query() _query: PageQuery) {}
      @Post() walk(@Body() _body: PageBody) {}
    }
    @Module({ controllers: [PagesController] })
    class PagesModule {}
    const app = await NestFactory.create(PagesModule, new FastifyAdapter(), { logger: false });
    try {
      const doc = SwaggerModule.createDocument(app, new DocumentBuilder().build());
      expect(doc.paths['/pages']!.get!.parameters).toEqual([
        {
          name: 'limit',
          in: 'query',
          required: false,
          schema: { type: 'integer', minimum: 1, maximum: 50, default: 20 },
        },
      ]);
      expect(doc.components!.schemas!['PageBody']).toEqual({
        type: 'object',
        properties: {
          depth: { type: 'integer', minimum: 1, maximum: 3, default: 1, description: 'Hops from the start' },
        },
      });
    } finally {
      await app.close();
    }
  });
});
