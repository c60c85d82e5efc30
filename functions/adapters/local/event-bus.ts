import { newId } from '#platform/ids.js';
import type { EventPublisher, PlatformEventInput } from '#platform/ports.js';
import { onLocalShutdown } from './lifecycle.js';

type Listener = (event: PlatformEventInput & { id: string }) => Promise<void>;

const listeners: Listener[] = [];

/**
 * The bus's rule targets, as deploying the stack wires them on AWS: the events dispatcher and the flow runner.
 * Attached on the first publish (so the platform starts without them) and detached when the local platform stops.
 */
let ruleTargets: Promise<void> | undefined;
/** A minute's time flows start side by side, as their Lambda invocations would on AWS (each run of a script still waits for one of its 10 slots). */
const flowRunnerConcurrency = 1000;
const attachRuleTargets = () =>
  (ruleTargets ??= Promise.all([import('../../events/local-rule.js'), import('../../events/dispatch.js'), import('../../flows/wiring.js')]).then(([{ attachDispatcher }, { eventDispatcher }, { flowRunner }]) => {
    const detach = [attachDispatcher(inProcessBus.subscribe, eventDispatcher), attachDispatcher(inProcessBus.subscribe, flowRunner, flowRunnerConcurrency)];
    onLocalShutdown(() => {
      for (const stop of detach) stop();
      ruleTargets = undefined;
    });
  }));

/** Local stand-in for EventBridge: delivery is asynchronous, as on AWS, and a failing listener does not stop the others. */
export const inProcessBus: EventPublisher & { subscribe(listener: Listener): () => void } = {
  async publish(event) {
    await attachRuleTargets();
    const delivered = { ...event, id: typeof event.id === 'string' ? event.id : newId('evt') };
    setImmediate(() => {
      for (const listener of listeners) listener(delivered).catch((error: unknown) => console.error('event listener failed', error));
    });
    return { eventId: delivered.id };
  },
  subscribe(listener) {
    listeners.push(listener);
    return () => listeners.splice(listeners.indexOf(listener), 1);
  },
};
