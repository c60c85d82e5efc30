// The X-Ray SDK is loaded inside a Lambda runtime only: outside one Powertools traces nothing, and loading the SDK
// alone installs an async hook on every promise of the process (the local platform would pay it on every request).
import { execFileSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const rootDir = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Imports the HTTP kit in a fresh Node with `env`, and says what it made of the tracer. */
function tracingIn(env: Record<string, string>): { tracer: boolean; tracing: boolean; xrayContext: boolean } {
  const script = `
    await import('./functions/platform/http.ts');
    const { tracer } = await import('./functions/platform/tracer.ts');
    console.log(JSON.stringify({ tracer: tracer !== undefined, tracing: tracer?.isTracingEnabled() ?? false, xrayContext: Boolean(process.namespaces?.AWSXRay) }));`;
  const output = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: rootDir,
    env: { PATH: process.env.PATH, AWS_REGION: 'us-east-1', ...env },
    encoding: 'utf8',
  });
  return JSON.parse(output.trim().split('\n').at(-1)!);
}

describe('tracer', () => {
  it('loads no X-Ray SDK outside a Lambda runtime', () => {
    // Act
    const outside = tracingIn({ PLATFORM_MODE: 'local' });
    // Assess
    expect(outside).toEqual({ tracer: false, tracing: false, xrayContext: false });
  });

  it('traces inside a Lambda runtime', () => {
    // Act
    const inside = tracingIn({ AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs20.x', AWS_LAMBDA_FUNCTION_NAME: 'platform-getMe' });
    // Assess
    expect(inside).toEqual({ tracer: true, tracing: true, xrayContext: true });
  });
});
