// The areas' settings as the composition root parses them from the environment: today's defaults, clear refusals;
// and the kernel's address of durable runs' links.
import { describe, expect, it } from 'vitest';
import { documentSettingsSchema } from '../../functions/documents/settings.js';
import { flowSettingsSchema } from '../../functions/flows/settings.js';
import { paymentSettingsSchema } from '../../functions/payments/settings.js';
import { defaultDurableLimits } from '../../functions/durable/limits.js';
import { scriptSettingsSchema } from '../../functions/scripts/settings.js';
import { templateSettingsSchema } from '../../functions/templates/settings.js';
import { kernelSettingsSchema, parseEnv } from '../../functions/platform/settings.js';

/** The scripts' AWS resource names, which only the stack sets. */
const noLambdaResources = {
  roleBoundaryArn: undefined,
  runtimeLayerArn: undefined,
  resourceCallFunction: undefined,
  resourceCallFunctionArn: undefined,
  npmInstallerFunction: undefined,
  pipInstallerFunction: undefined,
  grantSecretArn: undefined,
};

describe('area settings', () => {
  it('keeps the defaults of an unset environment', () => {
    // Prepare / Act
    const { scripts, documents, templates, flows } = parseEnv(
      { scripts: scriptSettingsSchema, documents: documentSettingsSchema, templates: templateSettingsSchema, flows: flowSettingsSchema },
      {},
    );
    // Assess
    expect(scripts).toEqual({
      maxWorkers: 32,
      idleMs: 300_000,
      manualRunsPerMinute: 100,
      packageInstallTimeoutSeconds: undefined,
      packagesBucket: undefined,
      pythonLintFunction: undefined,
      sandbox: 'bwrap',
      python: 'python3',
      lambda: noLambdaResources,
      durable: defaultDurableLimits,
    });
    expect(documents).toEqual({
      maxCachedVectors: 500_000,
      largeGraphChunks: 100_000,
      searchIndexWaitMs: 20_000,
      embeddingWorkers: undefined,
      bucket: undefined,
      vectorIndexArn: undefined,
      embeddingModelId: undefined,
    });
    expect(templates).toEqual({
      buildWaitSeconds: undefined,
      buildTimeoutMs: 600_000,
      fileRepositories: false,
      npmRegistry: 'https://registry.npmjs.org/',
      scratchMb: 1024,
      buildsMax: 2,
      buildsPerAccount: 1,
      path: '/usr/local/bin:/usr/bin:/bin',
      codeBuild: { projectName: undefined, bucketName: undefined, logGroupName: undefined },
      pages: { baseUrl: undefined, domain: undefined },
    });
    expect(flows.llm).toEqual({
      provider: undefined,
      baseUrl: undefined,
      apiKey: undefined,
      apiKeySecretArn: undefined,
      model: undefined,
      pricing: { inputPerMTok: 0, outputPerMTok: 0 },
    });
  });

  it("keeps the payments' and the kernel's defaults of an unset environment, and presents local mode as devnet", () => {
    // Prepare / Act
    const { payments, kernel } = parseEnv({ payments: paymentSettingsSchema, kernel: kernelSettingsSchema }, {});
    const local = parseEnv({ payments: paymentSettingsSchema }, { PLATFORM_MODE: 'local', SOLANA_NETWORK: 'solana' }).payments;
    // Assess
    expect(payments).toEqual({
      network: 'solana-devnet',
      rpcUrl: 'https://api.devnet.solana.com',
      feePayerAddress: undefined,
      feePayerSecretArn: undefined,
      platformWalletSecretArn: undefined,
      platformWalletAddress: undefined,
      payoutThresholdUsdc: 10,
      payoutFunctionName: undefined,
      localPayoutIntervalSeconds: 3600,
      solPriceUsd: 150,
    });
    expect(kernel).toMatchObject({ mode: 'aws', runWaitMs: 25_000, dataDir: '.data', scriptFunctionPrefix: 'platform-script-', region: 'us-east-1' });
    expect(local.network).toBe('solana-devnet');
  });

  it('refuses a price, threshold or network that is not one, naming every bad variable', () => {
    // Prepare
    const env = { SOL_PRICE_USD: '-1', PAYOUT_THRESHOLD_USDC: 'ten', SOLANA_NETWORK: 'solana-testnet', RUN_WAIT_SECONDS: 'soon' };
    // Act
    const parse = () => parseEnv({ payments: paymentSettingsSchema, kernel: kernelSettingsSchema }, env);
    // Assess
    expect(parse).toThrow(
      /^invalid configuration: .*SOLANA_NETWORK="solana-testnet".*; .*PAYOUT_THRESHOLD_USDC="ten".*; .*SOL_PRICE_USD="-1".*; RUN_WAIT_SECONDS="soon"/,
    );
  });

  it('reads the values that are set', () => {
    // Prepare / Act
    const { scripts } = parseEnv(
      { scripts: scriptSettingsSchema },
      {
        SCRIPT_MAX_WORKERS: '4',
        SCRIPT_IDLE_SECONDS: '2',
        SCRIPT_MANUAL_RUNS_PER_MINUTE: '100000',
        PACKAGE_INSTALL_TIMEOUT_SECONDS: '60',
        PYTHON: '/opt/python/bin/python3.12',
        DURABLE_MAX_STEPS: '20',
        DURABLE_MAX_JOURNAL_BYTES: '1000000',
        DURABLE_MAX_OPEN_WAITS_PER_RUN: '5',
        DURABLE_MAX_OPEN_WAITS_PER_USER: '3',
      },
    );
    // Assess
    expect(scripts).toEqual({
      maxWorkers: 4,
      idleMs: 2000,
      manualRunsPerMinute: 100_000,
      packageInstallTimeoutSeconds: 60,
      packagesBucket: undefined,
      pythonLintFunction: undefined,
      sandbox: 'bwrap',
      python: '/opt/python/bin/python3.12',
      lambda: noLambdaResources,
      durable: { maxSteps: 20, maxJournalBytes: 1_000_000, maxOpenWaitsPerRun: 5, maxOpenWaitsPerUser: 3 },
    });
  });

  it('refuses a value that is not a number, naming every bad variable', () => {
    // Prepare
    const env = { SCRIPT_MAX_WORKERS: 'abc', PACKAGE_INSTALL_TIMEOUT_SECONDS: 'soon', DURABLE_MAX_STEPS: '0', LARGE_GRAPH_CHUNKS: '1e3x' };
    // Act
    const parse = () => parseEnv({ scripts: scriptSettingsSchema, documents: documentSettingsSchema }, env);
    // Assess
    expect(parse).toThrow(
      /^invalid configuration: SCRIPT_MAX_WORKERS="abc" \(.*\); PACKAGE_INSTALL_TIMEOUT_SECONDS="soon" \(.*\); DURABLE_MAX_STEPS="0" \(.*\); LARGE_GRAPH_CHUNKS="1e3x"/,
    );
  });
});

describe("durable runs' link address", () => {
  const callbackBaseUrl = (env: Record<string, string>) => parseEnv({ kernel: kernelSettingsSchema }, env).kernel.callbackBaseUrl();

  it('is CALLBACK_BASE_URL when set, the local server by default, and refused on AWS without it', () => {
    // Prepare / Act
    const local = callbackBaseUrl({ PLATFORM_MODE: 'local' });
    const unsetOnAws = (() => {
      try {
        return callbackBaseUrl({});
      } catch (error) {
        return (error as Error).message;
      }
    })();
    const setOnAws = callbackBaseUrl({ CALLBACK_BASE_URL: 'https://d111111abcdef8.cloudfront.net' });
    // Assess
    expect(local).toBe('http://127.0.0.1:3000');
    expect(unsetOnAws).toMatch(/^CALLBACK_BASE_URL is not set/);
    expect(setOnAws).toBe('https://d111111abcdef8.cloudfront.net');
  });
});
