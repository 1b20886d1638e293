import FindMyWay from 'find-my-way';
import type { HTTPMethod } from 'find-my-way';

const METHODS: HTTPMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** How the application's router matches paths; the table must match them the same way. */
export interface RouteMatching {
  ignoreTrailingSlash?: boolean;
  ignoreDuplicateSlashes?: boolean;
}

/**
 * A copy of the application's routes, matched by path only. Fastify answers an unmatched
 * method with 404; this lets the not-found handler tell "no such path" (404) from "this path
 * exists with other methods" (405 with Allow). It matches paths as the router does (given its
 * options): a table that ignored a trailing slash the router does not would call
 * `/api/v1/models/` a path allowing GET, while the router serves it to nobody.
 */
export class RouteTable {
  private readonly router: ReturnType<typeof FindMyWay>;
  /** Paths without parameters and the methods registered for each. */
  private readonly fixed = new Map<string, Set<string>>();

  constructor(matching: RouteMatching = {}) {
    this.router = FindMyWay({
      ignoreTrailingSlash: matching.ignoreTrailingSlash ?? false,
      ignoreDuplicateSlashes: matching.ignoreDuplicateSlashes ?? false,
    });
  }

  add(method: string | string[], url: string): void {
    for (const m of Array.isArray(method) ? method : [method]) {
      const upper = m.toUpperCase() as HTTPMethod;
      if (!METHODS.includes(upper) || this.router.hasRoute(upper, url)) continue;
      this.router.on(upper, url, () => undefined);
      if (!url.includes(':') && !url.includes('*')) {
        const methods = this.fixed.get(url) ?? new Set<string>();
        this.fixed.set(url, methods.add(upper));
      }
    }
  }

  /**
   * The methods of a fixed route whose path a parametric route of another method also matches
   * (`POST /api/hosted-zones/enroll` beside `GET /api/hosted-zones/:id`), when `method` is not
   * one of them: the router hands such a request to the parametric route, though the path names
   * the fixed one. Undefined otherwise.
   */
  shadowedFixedRoute(method: string, path: string): string[] | undefined {
    const methods = this.fixed.get(path.split('?')[0]);
    return methods && !methods.has(method) ? METHODS.filter((m) => methods.has(m)) : undefined;
  }

  /** Methods registered for a concrete path (query string ignored). */
  allowedMethods(path: string): string[] {
    const bare = path.split('?')[0];
    return METHODS.filter((m) => this.router.find(m, bare) !== null);
  }
}
