import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

interface IntBounds {
  min: number;
  max: number;
  /** What the handler uses when the field is absent: documented here, applied by the handler. */
  default?: number;
  description?: string;
}

/**
 * A query parameter arrives as text: decimal digits alone are converted ("007" is 7) and any other
 * text (" 2", "2.0", "1e1", "0x10", "+3", an empty value) is refused as not an integer, so a typo
 * is never read as some other number. A minus sign before digits ("-1") is read as the negative
 * number it is, so it is refused by the bound it breaks ("offset must not be less than 0"). A JSON body carries numbers as they are ("7" is refused).
 */
export type OptionalIntOptions = IntBounds & { from: 'query' | 'body' };

const digitsToInt = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^(?:\d+|-[1-9]\d*)$/.test(value) ? Number(value) : value;

/** An optional integer field (a page's limit, offset, depth), validated and documented alike in every component. */
export function OptionalInt(options: OptionalIntOptions): PropertyDecorator {
  const { min, max } = options;
  const conversion = options.from === 'body' ? [] : [Transform(digitsToInt)];
  return applyDecorators(
    ApiPropertyOptional({
      type: 'integer',
      minimum: min,
      maximum: max,
      default: options.default,
      description: options.description,
    }),
    IsOptional(),
    ...conversion,
    IsInt(),
    Min(min),
    Max(max),
  );
}
