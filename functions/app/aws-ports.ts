// The AWS adapters of the kernel's ports, for the platform object built on AWS (functions/app/platform.ts). Every
// bundle that composes an area holds this module, so each adapter loads, with its SDK client, in a chunk of its own on
// its port's first call: a function that never publishes an event loads no EventBridge client. These ports' methods
// are all asynchronous, so the load hides behind their first call.
import type { BackgroundRuns, CredentialVault, EventPublisher, SchedulerPort } from '#platform/ports.js';
import type { KernelSettings } from '#platform/settings.js';
import { metrics, rateLimiter } from './edge.js';

/** `port`'s methods, each loading the adapter on the first call of any of them. */
function loadedOnFirstCall<P extends object>(load: () => Promise<P>, methods: readonly (keyof P & string)[]): P {
  let adapter: Promise<P> | undefined;
  const forward =
    (name: keyof P & string) =>
    async (...args: unknown[]) => {
      const loaded = await (adapter ??= load());
      return (loaded[name] as (...args: unknown[]) => unknown).apply(loaded, args);
    };
  return Object.fromEntries(methods.map((name) => [name, forward(name)])) as P;
}

/** The schedule group, role, bus and region the scheduler adapter works with. */
export const schedulerResources = (kernel: KernelSettings) => ({ region: kernel.region, busName: kernel.eventBusName, ...kernel.scheduler });

export function awsPlatformPorts(kernel: KernelSettings) {
  return {
    eventBus: loadedOnFirstCall<EventPublisher>(
      async () => (await import('#adapters/aws/event-bus.js')).eventBridgePublisher(kernel.eventBusName),
      ['publish'],
    ),
    scheduler: loadedOnFirstCall<SchedulerPort>(
      async () => (await import('#adapters/aws/scheduler.js')).createEventBridgeScheduler({}, schedulerResources(kernel)),
      ['put', 'putOnce', 'remove'],
    ),
    // One per container: it caches decrypted data keys.
    credentialVault: loadedOnFirstCall<CredentialVault>(
      async () => (await import('#adapters/aws/credential-vault.js')).kmsCredentialVault(() => kernel.credentialsKeyArn),
      ['encrypt', 'decrypt'],
    ),
    /** The function invoking itself with the job; its handler is wrapped in withBackgroundRuns. */
    backgroundRuns: <J, R>(run: (job: J) => Promise<R>): BackgroundRuns<J, R> =>
      loadedOnFirstCall<BackgroundRuns<J, R>>(
        async () => (await import('#adapters/aws/lambda-self-invoke.js')).createLambdaBackgroundRuns(run, {}, kernel.functionName),
        ['start'],
      ),
    metrics: metrics(),
    rateLimiter: rateLimiter(),
  };
}
