import { describe, expect, it } from 'vitest';
import { defineRoutes } from '../../functions/platform/route.js';
import { createRouteMatcher } from '../../functions/platform/route-match.js';
import { routes } from '../../functions/routes.js';

const sample = Object.values(
  defineRoutes('sample', {
    getThing: { method: 'GET', path: '/things/{thingId}', auth: 'public', summary: '' },
    listMarket: { method: 'GET', path: '/things/marketplace', auth: 'public', summary: '' },
    patchThing: { method: 'PATCH', path: '/things/{thingId}', auth: 'public', summary: '' },
    serveFile: { method: 'GET', path: '/files/{path+}', auth: 'public', summary: '' },
  }),
);
const match = createRouteMatcher(sample);

describe('route table', () => {
  it('derives each handler module from its area and operation', () => {
    expect(sample[0]!.handler).toBe('functions/app/sample/handlers/get-thing.ts');
  });

  it('holds each method and path once', () => {
    const keys = routes.map((route) => `${route.method} ${route.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe('route matching', () => {
  it('prefers a static segment over a parameter, as API Gateway does', () => {
    expect(match('GET', '/things/marketplace')).toMatchObject({ kind: 'found', route: { operation: 'listMarket' } });
    expect(match('GET', '/things/t_1')).toMatchObject({ kind: 'found', route: { operation: 'getThing' }, pathParameters: { thingId: 't_1' } });
  });

  it('decodes path parameters', () => {
    expect(match('GET', '/things/a%20b')).toMatchObject({ pathParameters: { thingId: 'a b' } });
  });

  it('takes the rest of the path into a greedy parameter', () => {
    expect(match('GET', '/files/a/b/c.txt')).toMatchObject({ kind: 'found', pathParameters: { path: 'a/b/c.txt' } });
  });

  it('reports the allowed methods when only the method is wrong', () => {
    expect(match('DELETE', '/things/t_1')).toEqual({ kind: 'wrongMethod', allowed: ['GET', 'PATCH'] });
  });

  it('reports nothing for an unknown path', () => {
    expect(match('GET', '/nothing')).toEqual({ kind: 'none' });
  });
});
