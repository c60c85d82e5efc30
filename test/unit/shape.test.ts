import { readFileSync } from 'node:fs';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import { beforeAll, describe, expect, it } from 'vitest';

let graph: ICruiseResult;

beforeAll(async () => {
  // Type-only imports count too: a circle of types is still a circle a reader has to untangle.
  const result = await cruise(['functions'], {
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    validate: true,
    ruleSet: { forbidden: [{ name: 'no-circular', severity: 'error', from: {}, to: { circular: true } }] },
  });
  graph = result.output as ICruiseResult;
});

const sourceOf = (path: string) => readFileSync(path, 'utf8');
const modules = () => graph.modules.filter((module) => module.source.startsWith('functions/') && module.source.endsWith('.ts'));

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
    const composition = (path: string) => /^functions\/app\/[\w-]+\.ts$/.test(path) || /^functions\/[\w-]+\/wiring\.ts$/.test(path);
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
    // Prepare: the reviews target is the area's side of the reviews area, as wired in wiring.ts
    const areaWide = ['model', 'ports', 'reviews', 'routes', 'schemas', 'service', 'settings', 'store', 'tables', 'wiring'].map(
      (name) => `functions/scripts/${name}.ts`,
    );
    const subDomains = ['runs', 'packages', 'authoring', 'views', 'durable'];
    // Act
    const scripts = modules().filter((module) => module.source.startsWith('functions/scripts/') && !module.source.startsWith('functions/scripts/handlers/'));
    const top = scripts.filter((module) => !module.source.slice('functions/scripts/'.length).includes('/')).map((module) => module.source);
    const folders = new Set(scripts.map((module) => module.source.split('/')[2]).filter((part) => !part.endsWith('.ts')));
    // Assess
    expect(top.filter((path) => !areaWide.includes(path))).toEqual([]);
    expect([...folders].sort()).toEqual([...subDomains].sort());
  });

  it('keeps services off the composition modules: only handlers and other composition modules import them', () => {
    // Prepare: the handler kit (http.ts, x402-http.ts) builds handlers.
    const wiring = (path: string) => /^functions\/[\w-]+\/wiring\.ts$/.test(path);
    const handlerLayer = (path: string) => path.includes('/handlers/') || ['functions/platform/http.ts', 'functions/payments/x402-http.ts'].includes(path);
    // Act
    const importers = modules()
      .filter((module) => !wiring(module.source) && !handlerLayer(module.source) && !module.source.startsWith('functions/adapters/'))
      .flatMap((module) =>
        module.dependencies.filter((dependency) => wiring(dependency.resolved)).map((dependency) => `${module.source} -> ${dependency.resolved}`),
      );
    // Assess
    expect(importers).toEqual([]);
  });

  it('reads the environment only in the settings modules and the composition root', () => {
    // Prepare: settings modules declare and parse; the root parses once per start and switches on the mode.
    // Still reading it where they stand (move each onto its area's settings, then drop it here).
    const notYetMoved = [
      'functions/adapters/aws/bedrock-embedder.ts',
      'functions/adapters/aws/credential-vault.ts',
      'functions/adapters/aws/package-installer.ts',
      'functions/adapters/aws/platform-wallet.ts',
      'functions/adapters/aws/scheduler.ts',
      'functions/adapters/aws/script-functions.ts',
      'functions/adapters/local/script-sandbox.ts',
      'functions/adapters/script-grant-key.ts',
      'functions/scripts/authoring/python.ts',
    ];
    const allowed = (path: string) =>
      /^functions\/([\w-]+\/)?settings\.ts$/.test(path) || ['functions/app/platform.ts', 'functions/app/edge.ts'].includes(path) || notYetMoved.includes(path);
    // Act
    const readers = modules()
      .filter((module) => /process\.env\b|\b(readEnv|requiredEnv)\(/.test(sourceOf(module.source)))
      .map((module) => module.source);
    const rootReads = ['functions/app/platform.ts', 'functions/app/edge.ts'].flatMap((path) => sourceOf(path).match(/process\.env\.\w+/g) ?? []);
    // Assess
    expect(readers.filter((path) => !allowed(path))).toEqual([]);
    expect(notYetMoved.filter((path) => !readers.includes(path))).toEqual([]);
    expect(new Set(rootReads)).toEqual(new Set(['process.env.PLATFORM_MODE']));
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
