import type pg from 'pg';
import { activeSpanExists, recordError, SpanKind, tracer, tracingEnabled, withSpan } from '@kw/platform-tracing';

/** db.statement is the SQL text only (parameters never), and at most this long. */
const MAX_STATEMENT_CHARS = 4096;

type QueryFn = (...args: unknown[]) => unknown;
const traced = Symbol('kw.traced');

/**
 * Database spans at the one place connections are made: every query a pooled connection runs
 * (Prisma's through @prisma/adapter-pg, and the repositories' own SQL) gets a client span with
 * the SQL text, when it belongs to a traced unit of work (background polling stays untraced).
 * With tracing off the pool is returned untouched: no listener, no wrapper.
 */
export function tracePool(pool: pg.Pool): pg.Pool {
  if (!tracingEnabled()) return pool;
  pool.on('connect', (client) => traceClient(client));
  return pool;
}

function traceClient(client: pg.PoolClient): void {
  const marked = client as pg.PoolClient & { [traced]?: true };
  if (marked[traced]) return;
  marked[traced] = true;
  const query = client.query.bind(client) as QueryFn;
  (client as unknown as { query: QueryFn }).query = (...args: unknown[]) => {
    const config = args[0] as { text?: unknown; submit?: unknown } | string | undefined;
    // Submittables (cursors, streams) end on their own events: not traced.
    if (!activeSpanExists() || (typeof config === 'object' && typeof config?.submit === 'function')) {
      return query(...args);
    }
    const text = typeof config === 'string' ? config : typeof config?.text === 'string' ? config.text : '';
    const operation = operationOf(text);
    const span = tracer().startSpan(operation ? `pg ${operation}` : 'pg', {
      kind: SpanKind.CLIENT,
      attributes: {
        'db.system': 'postgresql',
        'db.system.name': 'postgresql',
        'db.operation': operation,
        'db.operation.name': operation,
        'db.statement': text.slice(0, MAX_STATEMENT_CHARS),
        'db.query.text': text.slice(0, MAX_STATEMENT_CHARS),
      },
    });
    const finish = (err?: unknown) => {
      if (err) recordError(span, err);
      span.end();
    };
    const last = args.length - 1;
    if (typeof args[last] === 'function') {
      // Callback form (pg-pool's own pool.query): end the span when pg calls back.
      const callback = args[last] as (err: unknown, result: unknown) => void;
      args[last] = (err: unknown, result: unknown) => {
        finish(err);
        callback(err, result);
      };
      return query(...args);
    }
    let result: unknown;
    try {
      result = query(...args);
    } catch (err) {
      finish(err);
      throw err;
    }
    if (result && typeof (result as Promise<unknown>).then === 'function') {
      return (result as Promise<unknown>).then(
        (value) => {
          finish();
          return value;
        },
        (err: unknown) => {
          finish(err);
          throw err;
        },
      );
    }
    finish();
    return result;
  };
}

/** The statement's verb (SELECT, INSERT, BEGIN...), or '' for an empty text. */
function operationOf(sql: string): string {
  const match = /^\s*(?:--[^\n]*\n\s*|\/\*[\s\S]*?\*\/\s*)*([A-Za-z]+)/.exec(sql);
  return match ? match[1].toUpperCase() : '';
}

interface Extendable {
  $extends(extension: unknown): unknown;
}

/**
 * A span per Prisma operation (`prisma Fragment.findMany`, `prisma $queryRaw`), parent of the
 * pg spans of the SQL it runs, through a query extension. With tracing off the client itself
 * is returned, unextended.
 */
export function tracePrismaClient<C extends Extendable>(client: C): C {
  if (!tracingEnabled()) return client;
  return client.$extends({
    name: 'kw-tracing',
    query: {
      $allOperations({
        model,
        operation,
        args,
        query,
      }: {
        model?: string;
        operation: string;
        args: unknown;
        query: (args: unknown) => Promise<unknown>;
      }) {
        if (!activeSpanExists()) return query(args);
        return withSpan(
          `prisma ${model ? `${model}.` : ''}${operation}`,
          {
            kind: SpanKind.CLIENT,
            attributes: {
              'db.system': 'postgresql',
              'db.system.name': 'postgresql',
              'db.operation': operation,
              'db.operation.name': operation,
              ...(model ? { 'db.collection.name': model } : {}),
            },
          },
          () => query(args),
        );
      },
    },
  }) as C;
}
