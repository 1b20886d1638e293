import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

interface IntBounds {
  min: number;
  max: number;
  /** What the handler uses when the field is absent: documented here, applied by the handler. */
  default?: number;
  description?: string;
}

/**
 * A query parameter arrives as text and is converted before it is checked; a JSON body carries
 * numbers as they are ("7" in a body is refused).
 */
export type OptionalIntOptions = IntBounds &
  (
    | { from: 'body' }
    | {
        from: 'query';
        /**
         * Convert decimal digits alone ("007" is 7) and refuse any other text as not an integer.
         * Without it the text is read as Number() reads it: " 2", "2.0", "1e1", "0x10", "+3" are
         * numbers and an empty value is 0.
         */
        digitsOnly?: boolean;
      }
  );

const digitsToInt = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;

/** An optional integer field (a page's limit, offset, depth), validated and documented alike in every component. */
export function OptionalInt(options: OptionalIntOptions): PropertyDecorator {
  const { min, max } = options;
  const conversion = options.from === 'body' ? [] : [options.digitsOnly ? Transform(digitsToInt) : Type(() => Number)];
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
