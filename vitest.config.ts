import { configDefaults, defineConfig } from 'vitest/config';

// Suites that would take `npm test` past ten minutes on two cores: `npm run test:long` runs them, and so does .ci/run.
const longSuites = [
  'test/hardening/http-fuzz.test.ts',
  'test/e2e/durable-restart.test.ts',
  'test/e2e/durable-map-restart.test.ts',
  'test/e2e/cli.test.ts',
  'test/e2e/local-runtime.test.ts',
];
const onlyLong = process.env.TEST_SUITES === 'long';

export default defineConfig({
  test: {
    include: onlyLong ? longSuites : ['test/**/*.test.ts'],
    exclude: onlyLong ? configDefaults.exclude : [...configDefaults.exclude, ...longSuites],
    globalSetup: ['test/support/global-setup.ts'],
    // Tests that switch to local mode without starting the platform find the local adapters installed.
    setupFiles: ['test/support/local-adapters.ts'],
    // Forks, not threads: tests start child processes and set process.env per file.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 120_000,
    env: { POWERTOOLS_LOG_LEVEL: 'ERROR', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
