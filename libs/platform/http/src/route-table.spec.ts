import type { FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { describe, expect, it } from 'vitest';
import { ErrorResponder } from './error-responder.js';
import { RouteTable } from './route-table.js';

const request = (method: string, url: string) => ({ method, url }) as FastifyRequest;

describe('RouteTable and the answer to a route miss', () => {
  const routes = new RouteTable({ ignoreTrailingSlash: false, ignoreDuplicateSlashes: false });
  routes.add(['GET', 'HEAD'], '/api/v1/models');
  routes.add('DELETE', '/api/things/:id');
  const responder = new ErrorResponder({} as Logger, routes);

  it('matches paths as the router does: a trailing slash is another path', () => {
    expect(routes.allowedMethods('/api/v1/models')).toEqual(['GET', 'HEAD']);
    expect(routes.allowedMethods('/api/v1/models/')).toEqual([]);
    expect(routes.allowedMethods('/api//v1/models')).toEqual([]);
  });

  it('answers 405 with the allowed methods for a path served under other methods, 404 otherwise', () => {
    expect(responder.routeMiss(request('POST', '/api/v1/models'))).toMatchObject({
      status: 405,
      details: { allow: ['GET', 'HEAD'] },
    });
    expect(responder.routeMiss(request('GET', '/api/v1/models/'))).toMatchObject({ status: 404 });
  });

  it('never answers a 405 that allows the method it refuses', () => {
    // A table matching more loosely than the router (as it once did) still cannot say so.
    const loose = new RouteTable({ ignoreTrailingSlash: true });
    loose.add(['GET', 'HEAD'], '/api/v1/models');
    const miss = new ErrorResponder({} as Logger, loose).routeMiss(request('GET', '/api/v1/models/'));
    expect(miss).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });

  it("answers 405 where a parametric route of another method would take a fixed route's path", () => {
    const table = new RouteTable();
    table.add('POST', '/api/zones/enroll');
    table.add(['GET', 'HEAD', 'DELETE'], '/api/zones/:id');
    const shadowing = new ErrorResponder({} as Logger, table);
    const routed = (method: string, url: string, route: string) =>
      shadowing.shadowedRoute({ method, url, routeOptions: { url: route } } as FastifyRequest);
    expect(routed('GET', '/api/zones/enroll?x=1', '/api/zones/:id')).toMatchObject({
      status: 405,
      details: { allow: ['POST'] },
    });
    expect(routed('DELETE', '/api/zones/enroll', '/api/zones/:id')).toMatchObject({ status: 405 });
    // Other ids, the fixed route's own method and fixed routes are the router's to answer.
    expect(routed('GET', '/api/zones/0b9d6f1e-6a57-4c55-9d57-7d1d2f0c1a11', '/api/zones/:id')).toBeUndefined();
    expect(routed('POST', '/api/zones/enroll', '/api/zones/enroll')).toBeUndefined();
  });
});
