import { readFileSync } from 'node:fs';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import { beforeAll, describe, expect, it } from 'vitest';
import { accountTables } from '../../functions/accounts/tables.js';
import { approvalTables } from '../../functions/approvals/tables.js';
import { oauthTables } from '../../functions/oauth/tables.js';
import { documentTables } from '../../functions/documents/tables.js';
import { eventTables } from '../../functions/events/tables.js';
import { flowTables } from '../../functions/flows/tables.js';
import { paymentTables } from '../../functions/payments/tables.js';
import { platformTables } from '../../functions/platform/tables.js';
import { resourceTables } from '../../functions/resources/tables.js';
import { reviewTables } from '../../functions/reviews/tables.js';
import { scriptTables } from '../../functions/scripts/tables.js';
import { durableTables } from '../../functions/durable/tables.js';
import { templateTables } from '../../functions/templates/tables.js';

let graph: ICruiseResult;

beforeAll(async () => {
  // Type-only imports count too: a circle of types is still a circle a reader has to untangle.
  const result = await cruise(['functions'], {
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    validate: true,
    // A dynamic import() loads on first use, not at import: it is how a composition reaches one built after it (the
    // engine's `invoke` kind and the scripts' runner), so only static imports may not go round.
    ruleSet: { forbidden: [{ name: 'no-circular', severity: 'error', from: {}, to: { circular: true, viaOnly: { dependencyTypesNot: ['dynamic-import'] } } }] },
  });
  graph = result.output as ICruiseResult;
});

const sourceOf = (path: string) => readFileSync(path, 'utf8');
const modules = () => graph.modules.filter((module) => module.source.startsWith('functions/') && module.source.endsWith('.ts'));

const areas = ['accounts', 'approvals', 'documents', 'durable', 'events', 'flows', 'oauth', 'payments', 'resources', 'reviews', 'scripts', 'templates'];
/** The area whose domain (functions/<area>/) holds a module; undefined for the kernel, the adapters and the app layer. */
const areaOf = (path: string) => areas.find((area) => path.startsWith(`functions/${area}/`));
/** The area a module serves: its domain, or its handlers and composition in functions/app/<area>/. */
const ownerOf = (path: string) => areaOf(path) ?? areas.find((area) => path.startsWith(`functions/app/${area}/`));
/** An area's composition: its providers (one per capability, or the area's wiring.ts), services built with their production dependencies. */
const wiring = (path: string) => /^functions\/app\/[\w-]+\/[\w-]+\.ts$/.test(path);

describe('shape of functions/', () => {
  it('has no import cycle among its modules', () => {
    // Prepare / Act: the cruise of beforeAll
    const cycles = graph.summary.violations.map((violation) => (violation.cycle ?? []).map((step) => step.name).join(' -> '));
    // Assess
    expect(graph.summary.totalCruised).toBeGreaterThan(100);
    expect(cycles).toEqual([]);
  });

  it('imports adapters only from adapters themselves and the composition modules', () => {
    // Prepare
    const composition = (path: string) => /^functions\/app\/[\w-]+\.ts$/.test(path) || wiring(path);
    // Act
    const importers = modules()
      .filter((module) => !module.source.startsWith('functions/adapters/') && !composition(module.source))
      .flatMap((module) =>
        module.dependencies
          .filter((dependency) => dependency.resolved.startsWith('functions/adapters/'))
          .map((dependency) => `${module.source} -> ${dependency.resolved}`),
      );
    // Assess
    expect(importers).toEqual([]);
  });

  it('keeps offline tools and test support out of production code: no module of functions/ imports bench/ or test/', () => {
    // Prepare: the cruise follows every import, so a tool kept in functions/ would bring its test/ imports along
    const outside = (path: string) => path.startsWith('bench/') || path.startsWith('test/');
    // Act
    const reaching = modules().flatMap((module) =>
      module.dependencies.filter((dependency) => outside(dependency.resolved)).map((dependency) => `${module.source} -> ${dependency.resolved}`),
    );
    // Assess
    expect(reaching).toEqual([]);
  });

  it('keeps the local bus rules in the local adapters, knowing no area: they import only the kernel', () => {
    // Prepare: the local stand-in of EventBridge's rules attaches every consumer, so it belongs to no area
    const rules = modules().find((module) => module.source === 'functions/adapters/local/bus-rules.ts');
    // Act
    const areaImports = (rules?.dependencies ?? [])
      .map((dependency) => dependency.resolved)
      .filter((path) => path.startsWith('functions/') && !path.startsWith('functions/platform/'));
    // Assess
    expect(rules).toBeDefined();
    expect(areaImports).toEqual([]);
  });

  it('keeps the scripts area in its sub-domains: at its top only the area-wide modules, the rest in runs/, packages/, authoring/, views/, durable/', () => {
    // Prepare: the reviews target is the area's side of the reviews area, as wired in its composition
    const areaWide = ['api', 'model', 'ports', 'reviews', 'routes', 'schemas', 'service', 'settings', 'store', 'tables'].map(
      (name) => `functions/scripts/${name}.ts`,
    );
    const subDomains = ['runs', 'packages', 'authoring', 'views', 'durable'];
    // Act
    const scripts = modules().filter((module) => module.source.startsWith('functions/scripts/'));
    const top = scripts.filter((module) => !module.source.slice('functions/scripts/'.length).includes('/')).map((module) => module.source);
    const folders = new Set(scripts.map((module) => module.source.split('/')[2]).filter((part) => !part.endsWith('.ts')));
    // Assess
    expect(top.filter((path) => !areaWide.includes(path))).toEqual([]);
    expect([...folders].sort()).toEqual([...subDomains].sort());
  });

  it("keeps each area's domain below the app layer: no module of functions/<area>/, its facade (api.ts) included, imports functions/app/", () => {
    // Prepare: a facade is built from its area's services by the area's composition, which hands it to other areas' compositions
    const domain = modules().filter((module) => areaOf(module.source));
    // Act
    const upward = domain.flatMap((module) =>
      module.dependencies
        .filter((dependency) => dependency.resolved.startsWith('functions/app/'))
        .map((dependency) => `${module.source} -> ${dependency.resolved}`),
    );
    // Assess
    expect(domain.filter((module) => module.source.endsWith('/api.ts')).length).toBeGreaterThan(5);
    expect(upward).toEqual([]);
  });

  it('keeps services off the composition modules: only handlers and other composition modules import them', () => {
    // Prepare
    const handlerLayer = (path: string) => path.includes('/handlers/');
    // The composition above the areas (functions/app/, e.g. the trigger pipeline's target kinds) takes them from the areas' wirings.
    const aboveAreas = (path: string) => /^functions\/app\/[\w-]+\.ts$/.test(path);
    // Act
    const importers = modules()
      .filter(
        (module) => !wiring(module.source) && !handlerLayer(module.source) && !aboveAreas(module.source) && !module.source.startsWith('functions/adapters/'),
      )
      .flatMap((module) =>
        module.dependencies.filter((dependency) => wiring(dependency.resolved)).map((dependency) => `${module.source} -> ${dependency.resolved}`),
      );
    // Assess
    expect(importers).toEqual([]);
  });

  it('reads the environment only in the settings modules and the composition root', () => {
    // Prepare: settings modules declare and parse; the root parses once per start and switches on the mode.
    // The root is platform.ts, edge.ts, the AWS ports and the area adapter modules beside them, so that bundles stay small.
    const root = (path: string) => /^functions\/app\/[\w-]+\.ts$/.test(path);
    const allowed = (path: string) => /^functions\/([\w-]+\/)?settings\.ts$/.test(path) || root(path);
    // Act
    const readers = modules()
      .filter((module) => /process\.env\b|\b(readEnv|requiredEnv)\(/.test(sourceOf(module.source)))
      .map((module) => module.source);
    const rootReads = modules()
      .filter((module) => root(module.source))
      .flatMap((module) => sourceOf(module.source).match(/process\.env\.\w+/g) ?? []);
    // Assess
    expect(readers.filter((path) => !allowed(path))).toEqual([]);
    expect(new Set(rootReads)).toEqual(new Set(['process.env.PLATFORM_MODE']));
  });

  it('lets areas meet only through facades: another area is reached only by its api.ts, schemas.ts or model.ts (a route table also by its routes.ts)', () => {
    // Prepare: an area's domain and its handlers and composition (functions/app/<area>/) alike. api.ts is the facade,
    // schemas.ts and model.ts the types it speaks; a route that runs another area's operation declares that
    // operation's grants, so a route table may spread another route table's. A composition takes another area's
    // facade as that area's composition built it (`<area>Api`), and nothing else of it.
    // A provider may take the facade on first use instead: `(await import('#functions/app/<area>/wiring.js')).<area>Api`.
    const facadesOnly = (from: string, to: string) => {
      const source = sourceOf(from);
      const names = [
        ...[...source.matchAll(/^import \{([^}]*)\} from '#functions\/app\/([\w-]+)\/wiring\.js';$/gm)]
          .filter((match) => to === `functions/app/${match[2]}/wiring.ts`)
          .flatMap((match) => match[1]!.split(',').map((name) => name.trim())),
        ...[...source.matchAll(/\(await import\('#functions\/app\/([\w-]+)\/wiring\.js'\)\)\.(\w+)/g)]
          .filter((match) => to === `functions/app/${match[1]}/wiring.ts`)
          .map((match) => match[2]!),
      ];
      return names.length > 0 && names.every((name) => /^\w+Api$/.test(name));
    };
    const allowed = (from: string, to: string) =>
      ['api.ts', 'schemas.ts', 'model.ts'].some((name) => to.endsWith(`/${name}`) && to.split('/').length === 3) ||
      (from.endsWith('/routes.ts') && /^functions\/[\w-]+\/routes\.ts$/.test(to)) ||
      (wiring(from) && wiring(to) && facadesOnly(from, to));
    // Act
    const reaching = modules()
      .filter((module) => ownerOf(module.source))
      .flatMap((module) =>
        module.dependencies
          .filter((dependency) => ownerOf(dependency.resolved) && ownerOf(dependency.resolved) !== ownerOf(module.source))
          .filter((dependency) => !allowed(module.source, dependency.resolved))
          .map((dependency) => `${module.source} -> ${dependency.resolved}`),
      );
    // Assess
    expect(reaching).toEqual([]);
  });

  it('has no cycle between the areas: the domain folders import each other in one direction only', () => {
    // Prepare: an edge a -> b for every import of b by a domain module of a
    const edges = new Map(areas.map((area) => [area, new Set<string>()]));
    for (const module of modules().filter((candidate) => areaOf(candidate.source)))
      for (const dependency of module.dependencies) {
        const target = areaOf(dependency.resolved);
        if (target && target !== areaOf(module.source)) edges.get(areaOf(module.source)!)!.add(target);
      }
    // Act: every path that comes back to the area it started from
    const cycles: string[] = [];
    const walk = (path: string[]) => {
      for (const next of edges.get(path.at(-1)!)!) {
        if (next === path[0]) cycles.push([...path, next].join(' -> '));
        else if (!path.includes(next) && next > path[0]!) walk([...path, next]);
      }
    };
    for (const area of areas) walk([area]);
    // Assess
    expect([...edges.values()].some((targets) => targets.size > 0)).toBe(true);
    expect(cycles).toEqual([]);
  });

  it('gives each table one owner: only the area that declares it (the kernel for its own) names it to DynamoDB', () => {
    // Prepare: an area's tables.ts declares its tables; the kernel's are used by the kernel and the adapters
    const declared: Record<string, Record<string, unknown>> = {
      accounts: accountTables,
      approvals: approvalTables,
      documents: documentTables,
      durable: durableTables,
      events: eventTables,
      flows: flowTables,
      oauth: oauthTables,
      payments: paymentTables,
      resources: resourceTables,
      reviews: reviewTables,
      scripts: scriptTables,
      templates: templateTables,
      platform: platformTables,
    };
    const tableOwner = new Map(Object.entries(declared).flatMap(([owner, tables]) => Object.keys(tables).map((table) => [table, owner] as const)));
    const tableNames = [...tableOwner.keys()].join('|');
    // A store may also pick its table from a union of names: any quoted table name in a store counts.
    const named = (path: string) => {
      const source = sourceOf(path);
      const calls = [...source.matchAll(/tableName\(\s*'(\w+)'/g)].map((match) => match[1]!);
      const inStore = areaOf(path) && /store\.ts$/.test(path) ? [...source.matchAll(new RegExp(`'(${tableNames})'`, 'g'))].map((match) => match[1]!) : [];
      return [...new Set([...calls, ...inStore])];
    };
    // Act
    const strangers = modules()
      .filter((module) => !/\/(tables|routes)\.ts$/.test(module.source))
      .flatMap((module) => {
        const owner = ownerOf(module.source) ?? 'platform';
        return named(module.source)
          .filter((table) => tableOwner.get(table) !== owner)
          .map((table) => `${module.source} names ${table} (${tableOwner.get(table) ?? 'undeclared'})`);
      });
    // Assess
    expect(tableOwner.size).toBeGreaterThan(40);
    expect(strangers).toEqual([]);
  });

  it('keeps areas out of the adapters: an adapter takes from an area only the ports it implements', () => {
    // Prepare: from the area's port modules (ports.ts, *-port.ts) anything, since a port's contract includes its errors,
    // constants and the helpers an implementation must apply; types from its model, schemas or settings; never other code.
    // Still importing an area's code where they stand (move the shared code out of the area, then drop it here).
    const notYetMoved = [
      // builds the in-memory run slots of scripts/runs/run-slots.ts for the one local process
      'functions/adapters/local/adapters.ts',
      // stops the documents' extraction workers (extract-worker.ts) before shutdown waits for the jobs in flight
      'functions/adapters/local/background-jobs.ts',
      // runs the package managers (package-managers.ts) and stores the tree (package-trees.ts) as the installer function does
      'functions/adapters/local/package-installer.ts',
      // finds the interpreter with pythonExecutable (authoring/python.ts), which the Python code checks share
      'functions/adapters/local/script-pool.ts',
    ];
    const portContract = (dependency: { resolved: string; dependencyTypes: string[] }) =>
      /\/(ports|[\w-]+-port)\.ts$/.test(dependency.resolved) ||
      (dependency.dependencyTypes.includes('type-only') && /\/(model|schemas|settings)\.ts$/.test(dependency.resolved));
    // Act
    const importers = modules()
      .filter((module) => module.source.startsWith('functions/adapters/'))
      .filter((module) => module.dependencies.some((dependency) => ownerOf(dependency.resolved) && !portContract(dependency)))
      .map((module) => module.source);
    // Assess
    expect(importers.filter((path) => !notYetMoved.includes(path))).toEqual([]);
    expect(notYetMoved.filter((path) => !importers.includes(path))).toEqual([]);
  });

  it("imports zod's values as a namespace, which the bundler tree-shakes: `import { z }` brings all of zod, its locales too", () => {
    // Prepare: `import type { z }` costs nothing at run time
    const wholeZod = /^import \{ z \} from 'zod';$/m;
    // Act
    const importers = modules()
      .filter((module) => wholeZod.test(sourceOf(module.source)))
      .map((module) => module.source);
    // Assess
    expect(importers).toEqual([]);
  });

  it('keeps the durable engine knowing no run kind: functions/durable/ imports only itself and the kernel', () => {
    // Prepare: scripts and flows are the engine's resumers, approvals, events and callbacks its wait kinds; none is imported
    const engine = (path: string) => path.startsWith('functions/durable/');
    const allowed = (path: string) => engine(path) || path.startsWith('functions/platform/');
    // Act
    const outward = modules()
      .filter((module) => engine(module.source))
      .flatMap((module) =>
        module.dependencies
          .filter((dependency) => dependency.resolved.startsWith('functions/') && !allowed(dependency.resolved))
          .map((dependency) => `${module.source} -> ${dependency.resolved}`),
      );
    // Assess
    expect(modules().filter((module) => engine(module.source)).length).toBeGreaterThan(5);
    expect(outward).toEqual([]);
  });

  it("keeps scripts' runs below their durable side: functions/scripts/runs/ imports nothing of functions/scripts/durable/", () => {
    // Prepare: the runner takes the durable hooks as a port (DurableRunHooks); the durable side builds on the runner
    const runs = modules().filter((module) => module.source.startsWith('functions/scripts/runs/'));
    // Act
    const upward = runs.flatMap((module) =>
      module.dependencies
        .filter((dependency) => dependency.resolved.startsWith('functions/scripts/durable/'))
        .map((dependency) => `${module.source} -> ${dependency.resolved}`),
    );
    // Assess
    expect(runs.length).toBeGreaterThan(5);
    expect(upward).toEqual([]);
  });

  it('hands the durable engine its wait kinds and resumers in one registry: no module registers one on a built engine', () => {
    // Prepare: registration by side effect made the order of imports matter (a wake-up found no resumer)
    const registering = /\.register(WaitKind|Resumer)\(/;
    // Act
    const registrars = modules()
      .filter((module) => registering.test(sourceOf(module.source)))
      .map((module) => module.source);
    // Assess
    expect(registrars).toEqual([]);
  });

  it('keeps the kernel free of the rest: functions/platform/ imports nothing outside itself', () => {
    // Prepare: packages and Node's own modules resolve outside functions/
    const kernel = (path: string) => path.startsWith('functions/platform/');
    // Act
    const outward = modules()
      .filter((module) => kernel(module.source))
      .flatMap((module) =>
        module.dependencies
          .filter((dependency) => dependency.resolved.startsWith('functions/') && !kernel(dependency.resolved))
          .map((dependency) => `${module.source} -> ${dependency.resolved}`),
      );
    // Assess
    expect(modules().filter((module) => kernel(module.source)).length).toBeGreaterThan(30);
    expect(outward).toEqual([]);
  });
});
