import { configDefaults, defineConfig } from 'vitest/config';

// Suites that would take `npm test` past ten minutes on two cores: `npm run test:long` runs them, and so does .ci/run.
const longSuites = [
  'test/hardening/http-fuzz.test.ts',
  'test/hardening/document-bombs.test.ts',
  'test/hardening/shutdown.test.ts',
  'test/hardening/load.test.ts',
  'test/e2e/durable-restart.test.ts',
  'test/e2e/gather-restart.test.ts',
  'test/e2e/cli.test.ts',
  'test/e2e/cli-daily.test.ts',
  'test/e2e/local-runtime.test.ts',
  'test/e2e/template-builds.test.ts',
  'test/e2e/documents-score-stability.test.ts',
  'test/e2e/mcp-catalog.test.ts',
  'test/e2e/console-day.test.ts',
  'test/e2e/console.test.ts',
  'test/e2e/console-views.test.ts',
  'test/e2e/gather.test.ts',
  'test/e2e/cli-follow.test.ts',
  'test/e2e/quickstart.test.ts',
  'test/e2e/documents.test.ts',
  'test/e2e/document-graphs.test.ts',
  'test/e2e/script-dependencies.test.ts',
  'test/e2e/resource-calls.test.ts',
  'test/e2e/templates.test.ts',
  'test/integration/documents-jobs.test.ts',
  'test/hardening/prototype-keys.test.ts',
  'test/integration/scripts-aws-installer.test.ts',
];
// Known failing, left out of every run until mended (docs/decisions.md, "Durable runs: map, parallel, invoke"):
// `TEST_SUITES=map-restart npx vitest run` runs it.
const knownFailing = ['test/e2e/durable-map-restart.test.ts'];
const onlyLong = process.env.TEST_SUITES === 'long';
const onlyKnownFailing = process.env.TEST_SUITES === 'map-restart';

export default defineConfig({
  test: {
    include: onlyKnownFailing ? knownFailing : onlyLong ? longSuites : ['test/**/*.test.ts'],
    exclude: onlyLong || onlyKnownFailing ? configDefaults.exclude : [...configDefaults.exclude, ...longSuites, ...knownFailing],
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
