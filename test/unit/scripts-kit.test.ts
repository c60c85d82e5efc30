// Pure parts of the scripts area: code normalization, lint rules on JavaScript, cost, Lambda report parsing,
// marketplace ordering, semver and the stored shapes.
import { describe, expect, it } from 'vitest';
import { lambdaFailure, lambdaRuntimes, packageZip, parseReport } from '../../functions/adapters/aws/script-functions.js';
import { computeCostUsd, lambdaGbSecondUsd, msAffordable } from '../../functions/scripts/runs/cost.js';
import { lintScript } from '../../functions/scripts/authoring/lint/lint.js';
import { filterMarketplace } from '../../functions/scripts/views/marketplace.js';
import type { Script } from '../../functions/scripts/model.js';
import { CodeSyntaxError, toCommonJs } from '../../functions/scripts/authoring/node-code.js';
import { compareSemver, nextPatch } from '../../functions/platform/semver.js';
import { pythonFacts as factsOf } from '../../functions/scripts/authoring/python.js';
import { storedLogs, storedOutput } from '../../functions/scripts/runs/stored-run.js';
import { latestNodeRuntime } from '../../lib/platform-function.js';
import { pythonLambdaRuntime } from '../../lib/python-lint.js';

const load = (code: string) => {
  const module = { exports: {} as Record<string, unknown> };
  new Function('module', 'exports', 'require', toCommonJs(code))(module, module.exports, (name: string) => ({ name, default: `${name}-default`, value: 1 }));
  return module.exports;
};

/** This machine's python3 reads Python code, as the local platform's does. */
const pythonFacts = <T>(code: string) => factsOf<T>('python3', code);

describe('scripts kit: node code as the wrapper loads it', () => {
  it('exports a handler written in any of the accepted forms', () => {
    // Act
    const forms = [
      'async function handler(event) { return "top-level"; }',
      'export async function handler(event) { return "esm"; }',
      'exports.handler = async () => "exports";',
      'module.exports.handler = async () => "module.exports";',
      'const handler = async () => "const";',
      'async function run() { return "named"; }\nexport { run as handler };',
    ].map((code) => (load(code).handler as () => Promise<string>)());
    // Assess
    return expect(Promise.all(forms)).resolves.toEqual(['top-level', 'esm', 'exports', 'module.exports', 'const', 'named']);
  });

  it('turns imports into requires and keeps every line where the user wrote it', () => {
    // Prepare
    const code =
      "import fs, { value as v } from 'fs';\nimport * as path from 'path';\nexport const answer = v + 41;\nexport async function handler() {\n  throw new Error('x');\n}";
    // Act
    const converted = toCommonJs(code);
    const exported = load(code);
    // Assess
    expect(converted.split('\n')[4]).toBe("  throw new Error('x');");
    expect(exported.answer).toBe(42);
  });

  it('reports a syntax error with its line and column', () => {
    // Act
    const attempt = () => toCommonJs('export async function handler() {\n  return {;\n}');
    // Assess
    expect(attempt).toThrow(CodeSyntaxError);
    expect(attempt).toThrow(/line 2, column 11/);
  });
});

describe('scripts kit: lint of JavaScript', () => {
  const noResources = { methodsOf: async () => undefined, pythonFacts };

  it('warns about a handler that is not async and counts resource and SDK calls', async () => {
    // Act
    const report = await lintScript(
      { code: 'function handler(event) {\n  resources.db.get({});\n  sdk.flows.list();\n  mirra.scripts.run();\n}' },
      { methodsOf: async () => ['get'], pythonFacts },
    );
    // Assess
    expect(report).toEqual({
      valid: true,
      issueCount: 1,
      callAdapterCallsCount: 1,
      mirraSDKCallsCount: 2,
      issues: [{ severity: 'warning', line: 1, message: 'the handler is not async', suggestion: expect.stringContaining('async function handler') }],
    });
  });

  it('checks methods against the installed resource and names outside allowedResources', async () => {
    // Act
    const report = await lintScript(
      {
        code: 'export async function handler() {\n  await resources.db.get({});\n  await resources.db.drop({});\n  await resources.other.x({});\n  await resources[name].y();\n}',
      },
      { allowedResources: ['db'], methodsOf: async (name) => (name === 'db' ? ['get', 'put'] : undefined), pythonFacts },
    );
    // Assess
    expect(report.issues.map(({ severity, line, message }) => [severity, line, message])).toEqual([
      ['error', 3, 'resource db has no method drop'],
      ['error', 4, "resource other is not in the script's config.allowedResources"],
      ['warning', 5, 'resources[...].y() names its resource at run time and cannot be checked'],
    ]);
    expect(report.valid).toBe(false);
  });

  it('checks event.data reads against the event object of eventType as warnings, following aliases and destructuring', async () => {
    // Act
    const report = await lintScript(
      {
        eventType: 'mailapp.email_received',
        code: 'export async function handler(e) {\n  const d = e.data;\n  const { mailapp, chatapp } = e.data;\n  return [d.content.text, d.actor.nam, e.data?.entity.anything];\n}',
      },
      noResources,
    );
    // Assess
    expect(report.issues.map(({ severity, line, message }) => [severity, line, message])).toEqual([
      ['warning', 3, 'event.data.chatapp: mailapp.email_received events carry no chatapp object'],
      ['warning', 4, 'event.data.actor.nam: actor of mailapp.email_received events has no field nam (it has id, name, actorType)'],
    ]);
  });
});

describe('scripts kit: cost', () => {
  it("prices a run at Lambda's x86 GB-second rate for the configured memory", () => {
    // Act
    const oneGbSecond = computeCostUsd(1000, 1024);
    const affordable = msAffordable(computeCostUsd(250, 512), 512);
    // Assess
    expect(oneGbSecond).toBe(lambdaGbSecondUsd);
    expect(computeCostUsd(100, 128)).toBeCloseTo(0.1 * 0.125 * 0.0000166667, 15);
    expect(affordable).toBeGreaterThanOrEqual(249);
    expect(affordable).toBeLessThanOrEqual(250);
  });
});

describe('scripts kit: Lambda', () => {
  it('maps nodejs18 to the newest Node runtime the stack uses, and python3.11 to a supported Python runtime', () => {
    // Assess
    expect(lambdaRuntimes.nodejs18.runtime).toBe(latestNodeRuntime.name);
    expect(lambdaRuntimes['python3.11'].runtime).toBe(pythonLambdaRuntime.name);
  });

  it('reads duration and peak memory from the REPORT line and maps Lambda failures to execution errors', () => {
    // Prepare
    const tail =
      'START RequestId: 1\nEND RequestId: 1\nREPORT RequestId: 1\tDuration: 12.34 ms\tBilled Duration: 13 ms\tMemory Size: 128 MB\tMax Memory Used: 70 MB\t\n';
    // Act
    const report = parseReport(tail);
    // Assess
    expect(report).toEqual({ duration: 12.34, memoryUsed: 70 });
    expect(lambdaFailure({ errorType: 'Sandbox.Timedout', errorMessage: 'Task timed out after 3.00 seconds' })).toMatchObject({
      status: 'timeout',
      error: { code: 'TIMEOUT' },
    });
    expect(lambdaFailure({ errorType: 'Runtime.OutOfMemory', errorMessage: 'oom' }).error.code).toBe('MEMORY_LIMIT_EXCEEDED');
    expect(lambdaFailure({ errorType: 'Runtime.ExitError', errorMessage: 'exit' }).error).toEqual({
      code: 'SCRIPT_CRASHED',
      message: 'Runtime.ExitError: exit',
    });
  });

  it('zips the user code with a one-line entry into the layer for node, and the code alone for python', () => {
    // Act
    const node = Buffer.from(packageZip({ fileName: 'script.cjs', source: 'module.exports.handler = async () => 1;' })).toString('latin1');
    const python = Buffer.from(packageZip({ fileName: 'script.py', source: 'def handler(e, c):\n    return 1\n' })).toString('latin1');
    // Assess
    expect(node).toContain('index.cjs');
    expect(node).toContain('script.cjs');
    expect(python).toContain('script.py');
    expect(python).not.toContain('index.cjs');
  });
});

describe('scripts kit: marketplace, semver and stored runs', () => {
  const script = (overrides: Partial<Script>): Script =>
    ({
      scriptId: 'scr_a',
      name: 'a',
      description: '',
      tags: [],
      category: null,
      pricing: null,
      system: false,
      staffPick: false,
      ratingSum: 0,
      reviewCount: 0,
      installCount: 0,
      config: { timeout: 30, memory: 128, maxCostPerExecution: 1, maxExecutionsPerDay: 100, allowedResources: [] },
      createdAt: '2026-01-01T00:00:00.000Z',
      publishedAt: '2026-01-01T00:00:00.000Z',
      ...overrides,
    }) as Script;

  it('sorts by rating by default, and ranks new installs above old ones by trendingScore', () => {
    // Prepare
    const now = Date.parse('2026-02-01T00:00:00.000Z');
    const old = script({ scriptId: 'scr_old', installCount: 30, ratingSum: 9, reviewCount: 3, publishedAt: '2025-01-01T00:00:00.000Z' });
    const fresh = script({ scriptId: 'scr_new', installCount: 5, ratingSum: 10, reviewCount: 2, publishedAt: '2026-01-31T00:00:00.000Z' });
    // Act
    const byRating = filterMarketplace([old, fresh], {}, now).map((item) => item.scriptId);
    const trending = filterMarketplace([old, fresh], { sortBy: 'trendingScore' }, now).map((item) => item.scriptId);
    const minRating = filterMarketplace([old, fresh], { minRating: 4 }, now).map((item) => item.scriptId);
    // Assess
    expect(byRating).toEqual(['scr_new', 'scr_old']);
    expect(trending).toEqual(['scr_new', 'scr_old']);
    expect(minRating).toEqual(['scr_new']);
  });

  it('compares semantic versions numerically and bumps the patch', () => {
    // Assess
    expect(compareSemver('1.10.0', '1.9.9')).toBeGreaterThan(0);
    expect(compareSemver('2.0.0', '2.0.0')).toBe(0);
    expect(nextPatch('1.2.9')).toBe('1.2.10');
  });

  it('keeps a bounded prefix of huge logs and outputs in the stored record', () => {
    // Prepare
    const lines = Array.from({ length: 10_000 }, (_, i) => ({ text: `line ${i} ${'x'.repeat(100)}` }));
    const big = 'y'.repeat(400_000);
    // Act
    const kept = storedLogs(lines, 1).lines;
    const output = storedOutput(big, JSON.stringify(big));
    // Assess
    expect(kept.length).toBeLessThan(lines.length);
    expect(kept.at(-1)?.text).toMatch(/more log lines of invocation 1, and every line of later invocations, not kept/);
    expect(output).toMatchObject({ outputTruncated: true });
    expect(storedOutput({ a: 1 }, '{"a":1}')).toEqual({ output: { a: 1 } });
  });
});
