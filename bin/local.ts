// `npm start`: the whole platform on one machine, with DynamoDB Local and the same handlers as AWS.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createLocalApi } from '../functions/adapters/local/api-gateway.js';
import { localAdapters } from '../functions/adapters/local/adapters.js';
import { JavaMissingError, ensureTables, startDynamoLocal } from '../functions/adapters/local/dynamodb.js';
import { inProcessBus } from '../functions/adapters/local/event-bus.js';
import { onLocalShutdown, settlesWithin, stopLocalServices } from '../functions/adapters/local/lifecycle.js';
import { cpuShareStatus } from '../functions/adapters/local/cpu-shares.js';
import { busConsumers } from '../functions/consumers.js';
import { attachBusRule } from '../functions/adapters/local/bus-rules.js';
import { type BusEnvelope, busEnvelope, rulePattern } from '../functions/platform/bus-envelope.js';
import { installLocalAdapters, parsePlatformSettings, platform as currentPlatform } from '../functions/app/platform.js';
import { dynamo as dynamoClient, tableGrant, withGrantedTables } from '../functions/platform/dynamo.js';
import { countStoreCalls, tallyStoreCalls } from '../functions/adapters/local/store-calls.js';
import { routeTables } from '../functions/platform/route.js';
import { createPagesServer } from '../functions/adapters/local/pages-server.js';
import { createConsoleServer } from '../functions/adapters/local/console-server.js';
import { localHosts } from '../functions/adapters/local/local-hosts.js';
import { buildConsole } from '../console/build.js';
import { SandboxUnavailableError, scriptSandbox, scriptSandboxStatus } from '../functions/adapters/local/script-sandbox.js';
import { authorizerHandler, authorizerTables, routes } from '../functions/routes.js';

const rootDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export interface DevAccount {
  baseUrl: string;
  adminKey: string;
  userId: string;
  apiKey: string;
}

export interface PlatformOptions {
  port?: number;
  host?: string;
  dataDir?: string;
  /** Use a DynamoDB Local that is already running (tests share one); otherwise start one. */
  dynamoEndpoint?: string;
  /** Keep DynamoDB in memory instead of under dataDir. */
  inMemory?: boolean;
  adminKey?: string;
  /** Create (or reuse) the dev user and write dataDir/dev.json. */
  devAccount?: boolean;
  /** Called as each start-up step begins (`npm start` prints them). */
  onProgress?: (step: string) => void;
}

/** The HTTP port is taken: one line for the user, nothing left running. */
export class PortInUseError extends Error {}

/** Fails before anything starts when `port` cannot be bound, so a second `npm start` leaves no DynamoDB Local behind. */
const ensurePortFree = (port: number, host: string) =>
  new Promise<void>((free, taken) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      taken(
        error.code === 'EADDRINUSE'
          ? new PortInUseError(`port ${port} on ${host} is already in use (another npm start?): stop that process or set PORT=<another port>`)
          : error,
      ),
    );
    probe.listen(port, host, () => probe.close(() => free()));
  });

/**
 * A stop ends within this, whatever is queued: services get what is left after DynamoDB Local's reserve (a clean
 * exit writes its file), and DynamoDB Local is killed at the end. `npm start` exits within 10 s of SIGTERM.
 */
const stopBudgetMs = 8_000;
const databaseStopReserveMs = 3_000;
/** The last resort of `npm start`: the stop is bounded, but should anything still hang, the process exits at this. */
const exitDeadlineMs = 9_500;

export interface RunningPlatform {
  baseUrl: string;
  adminKey: string;
  dev?: DevAccount;
  /** Builds the web console served at `/` (once; the first browser request otherwise does). */
  buildConsole(): Promise<string>;
  stop(): Promise<void>;
}

export const freePort = () =>
  new Promise<number>((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolvePort(port));
    });
  });

const readDevFile = (path: string): Partial<DevAccount> => (existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Partial<DevAccount>) : {});

/**
 * The bus consumers, attached to the in-process bus as deploying the stack attaches them to EventBridge: the same
 * handler modules, the same rule patterns, retries with backoff; detached when the platform stops.
 */
async function attachBusConsumers(): Promise<void> {
  for (const consumer of busConsumers) {
    const { handler } = (await import(pathToFileURL(join(rootDir, consumer.handler)).href)) as { handler(envelope: BusEnvelope): Promise<unknown> };
    const pattern = rulePattern(consumer);
    const grant = tableGrant(consumer.name, Object.keys(routeTables(consumer)));
    const detach = attachBusRule(
      (listener) => inProcessBus.attachRule(pattern, (envelope) => listener(envelope.detail)),
      () => ({
        handle: (event) => tallyStoreCalls(`bus ${consumer.name} ${event.type}`, event.id, () => withGrantedTables(grant, () => handler(busEnvelope(event)))),
      }),
      consumer.localConcurrency,
    );
    onLocalShutdown(detach);
  }
}

async function ensureDevAccount(baseUrl: string, adminKey: string, previous: Partial<DevAccount>): Promise<DevAccount> {
  const { accountService } = await import('../functions/app/accounts/wiring.js');
  const service = accountService();
  if (previous.userId && previous.apiKey) {
    const identity = await service.resolveKey(previous.apiKey);
    if ('userId' in identity && identity.userId === previous.userId) return { baseUrl, adminKey, userId: previous.userId, apiKey: previous.apiKey };
  }
  const username = previous.userId ? `dev-${randomBytes(3).toString('hex')}` : 'dev';
  const created = await service.createUser({ username }).catch(() => service.createUser({ username: `dev-${randomBytes(3).toString('hex')}` }));
  return { baseUrl, adminKey, userId: created.userId, apiKey: created.apiKey };
}

export async function startPlatform(options: PlatformOptions = {}): Promise<RunningPlatform> {
  const dataDir = resolve(options.dataDir ?? process.env.DATA_DIR ?? '.data');
  mkdirSync(dataDir, { recursive: true });
  const devFile = join(dataDir, 'dev.json');
  const previous = readDevFile(devFile);

  process.env.PLATFORM_MODE = 'local';
  process.env.DATA_DIR = dataDir;
  process.env.AWS_REGION ??= 'us-east-1';
  process.env.POWERTOOLS_SERVICE_NAME ??= 'platform';
  // The SDK warns that its 2027 releases want Node 22; this project pins Node 20 on purpose.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

  // A bad setting or a platform that cannot run scripts: refuse before anything starts. The platform itself is
  // installed once the start has set the environment it reads (the database, the callback address).
  scriptSandbox(parsePlatformSettings(process.env).scripts.sandbox);
  const progress = options.onProgress ?? (() => undefined);
  const host = options.host ?? '127.0.0.1';
  const requestedPort = options.port ?? 3000;
  if (requestedPort !== 0) await ensurePortFree(requestedPort, host);

  if (!options.dynamoEndpoint) progress('starting DynamoDB Local (Java)');
  const dynamo = options.dynamoEndpoint
    ? { endpoint: options.dynamoEndpoint, stop: async () => undefined }
    : await startDynamoLocal({ port: await freePort(), ...(!options.inMemory && { dbPath: join(dataDir, 'dynamodb') }) });
  process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
  countStoreCalls(dynamoClient());
  progress('creating tables');
  await ensureTables(dynamo.endpoint, (name) => `${process.env.TABLE_PREFIX ?? 'platform-'}${name}`);

  const adminKey = options.adminKey ?? process.env.ADMIN_API_KEY ?? previous.adminKey ?? `adm_${randomBytes(32).toString('base64url')}`;
  process.env.ADMIN_API_KEY = adminKey;
  const { resetAdminKeyCache } = await import('../functions/platform/admin-key.js');
  resetAdminKeyCache();

  await attachBusConsumers();
  progress('loading the route table');
  let dev: DevAccount | undefined;
  const hosts = localHosts({ bindHost: host, publicBaseUrl: process.env.PUBLIC_BASE_URL });
  const webConsole = createConsoleServer({ build: () => buildConsole(join(dataDir, 'console')), devApiKey: () => dev?.apiKey, hosts });
  const server = await createLocalApi({
    routes,
    rootDir,
    authorizerHandler,
    authorizerTables,
    hosts,
    pages: createPagesServer(join(dataDir, 'pages')),
    console: webConsole.handle,
  });
  try {
    await new Promise<void>((ready, fail) => {
      server.once('error', fail);
      server.listen(requestedPort, host, () => ready());
    });
  } catch (error) {
    // Lost the port between the probe and now: leave nothing running either way.
    await stopLocalServices();
    await dynamo.stop();
    throw (error as NodeJS.ErrnoException).code === 'EADDRINUSE'
      ? new PortInUseError(`port ${requestedPort} on ${host} is already in use: set PORT=<another port>`)
      : error;
  }
  const { port } = server.address() as { port: number };
  const baseUrl = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
  // Durable runs' callback URLs point here unless a proxy's address is configured.
  process.env.CALLBACK_BASE_URL = process.env.PUBLIC_BASE_URL ?? baseUrl;
  // This start's platform: its first use builds it over the local adapters, with the environment now complete.
  installLocalAdapters(localAdapters);
  const { registerPlatformListener } = await import('../functions/platform/outbound.js');
  registerPlatformListener(baseUrl);
  registerPlatformListener(dynamo.endpoint);
  // Schedules kept under dataDir fire again after a restart, as AWS schedules outlive a deployment.
  (await import('../functions/adapters/local/scheduler.js')).localScheduler();
  (await import('../functions/adapters/local/payout-schedule.js')).localPayoutSchedule(
    currentPlatform().settings.payments.localPayoutIntervalSeconds,
    async () => (await import('../functions/app/payments/wiring.js')).payoutService().run(),
  );

  if (options.devAccount ?? true) {
    dev = await ensureDevAccount(baseUrl, adminKey, previous);
    writeFileSync(devFile, `${JSON.stringify(dev, null, 2)}\n`, { mode: 0o600 });
  }

  return {
    baseUrl,
    adminKey,
    dev,
    buildConsole: webConsole.build,
    async stop() {
      const deadline = Date.now() + stopBudgetMs;
      server.closeAllConnections();
      const closed = new Promise<void>((done) => server.close(() => done()));
      await stopLocalServices(deadline - databaseStopReserveMs);
      await settlesWithin(closed, deadline - databaseStopReserveMs - Date.now());
      await dynamo.stop(deadline);
    },
  };
}

async function main() {
  try {
    const started = Date.now();
    const onProgress = (step: string) => console.log(`[${((Date.now() - started) / 1000).toFixed(1)}s] ${step}`);
    const platform = await startPlatform({ port: Number(process.env.PORT ?? 3000), host: process.env.HOST, onProgress });
    onProgress('loading the embedding model (document search)');
    const { documentAdapters } = await import('../functions/app/document-adapters.js');
    await documentAdapters(currentPlatform()).embedder.embed(['warm up']);
    onProgress('building the web console');
    await platform.buildConsole();
    onProgress('ready');
    console.log(`Web console at ${platform.baseUrl}/ (signed in with the dev account)`);
    console.log(`Platform running at ${platform.baseUrl}/api/sdk/v1`);
    console.log(`Dev account written to ${join(process.env.DATA_DIR ?? '.data', 'dev.json')}`);
    console.log(`Try: curl -H "X-API-Key: ${platform.dev?.apiKey}" ${platform.baseUrl}/api/sdk/v1/me`);
    console.log(scriptSandboxStatus(currentPlatform().settings.scripts.sandbox));
    console.log(cpuShareStatus());
    let stopping = false;
    const shutdown = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      console.log(`${signal}: stopping`);
      setTimeout(() => {
        console.error(`the platform did not stop within ${exitDeadlineMs / 1000} s of ${signal}: exiting`);
        process.exit(1);
      }, exitDeadlineMs).unref();
      await platform.stop();
      process.exit(0);
    };
    process.on('SIGINT', () => void shutdown('SIGINT'));
    process.on('SIGTERM', () => void shutdown('SIGTERM'));
  } catch (error) {
    console.error(error instanceof JavaMissingError || error instanceof PortInUseError || error instanceof SandboxUnavailableError ? error.message : error);
    process.exit(1);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
