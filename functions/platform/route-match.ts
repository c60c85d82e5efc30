import type { Route } from './route.js';

export type RouteMatch =
  | { kind: 'found'; route: Route; pathParameters: Record<string, string> }
  | { kind: 'wrongMethod'; allowed: string[] }
  | { kind: 'none' };

interface CompiledRoute {
  route: Route;
  segments: string[];
  /** Static segments rank before parameters, left to right, as API Gateway ranks routes. */
  rank: string;
}

const isParam = (segment: string) => segment.startsWith('{') && segment.endsWith('}');
const split = (path: string) => path.split('/').filter(Boolean);

/** A segment that is not valid percent-encoding (`%ff`) names no object: the path matches no route (404). */
function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

function matchSegments(pattern: string[], actual: string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const segment = pattern[i]!;
    if (segment.endsWith('+}')) {
      if (i >= actual.length) return undefined;
      const rest = actual.slice(i).map(decodeSegment);
      if (rest.includes(undefined)) return undefined;
      params[segment.slice(1, -2)] = rest.join('/');
      return params;
    }
    const value = actual[i];
    if (value === undefined) return undefined;
    if (isParam(segment)) {
      const decoded = decodeSegment(value);
      if (decoded === undefined) return undefined;
      params[segment.slice(1, -1)] = decoded;
    } else if (segment !== value) return undefined;
  }
  return pattern.length === actual.length ? params : undefined;
}

export function createRouteMatcher(routes: Route[]) {
  const compiled: CompiledRoute[] = routes
    .map((route) => {
      const segments = split(route.path);
      return { route, segments, rank: segments.map((segment) => (isParam(segment) ? '1' : '0')).join('') };
    })
    .sort((a, b) => a.rank.localeCompare(b.rank));

  return (method: string, path: string): RouteMatch => {
    const actual = split(path);
    const allowed = new Set<string>();
    for (const candidate of compiled) {
      const params = matchSegments(candidate.segments, actual);
      if (!params) continue;
      if (candidate.route.method === method || candidate.route.method === 'ANY') return { kind: 'found', route: candidate.route, pathParameters: params };
      allowed.add(candidate.route.method);
    }
    return allowed.size ? { kind: 'wrongMethod', allowed: [...allowed].sort() } : { kind: 'none' };
  };
}
