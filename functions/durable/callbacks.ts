// The `callback` wait kind: the code gets a callback id and a signed URL (an unguessable single-use token, stored
// only as its hash) to hand to another system; the owner's POST to the callback route, or anyone's POST to the URL,
// ends the wait with a result or an error.
import { timingSafeEqual } from 'node:crypto';
import * as z from 'zod';
import { DurableError } from './errors.js';
import { newId, newSecret, sha256Hex } from '#platform/ids.js';
import type { DurableEngine } from './engine.js';
import type { Journal } from './journal.js';
import { Duration, durableErrorCodes, maxWaitSeconds } from './limits.js';
import type { WaitKind, WaitOutcome } from './wait-kinds.js';

const CallbackArgs = z.strictObject({ timeout: Duration.optional() });

const unknownCallback = (callbackId: string) => new DurableError(durableErrorCodes.notFound, `callback ${callbackId} not found`, { callbackId });

/** Where the signed URL points: the route that needs no key. */
export const callbackUrlPath = (executionId: string, callbackId: string, token: string) => `/api/callbacks/${executionId}/${callbackId}/${token}`;

/** `callback`: the wait the code opens with a callback id and the signed URL at `baseUrl` to hand over. */
export const callbackWaitKind = (baseUrl: () => string): WaitKind => ({
  type: 'callback',
  onTimeout: 'timeout',
  async open(owner, _name, args) {
    const parsed = CallbackArgs.safeParse(args ?? {});
    if (!parsed.success) throw new DurableError(durableErrorCodes.invalidArgument, parsed.error.issues[0]!.message, { field: 'timeout' });
    const callbackId = newId('cb');
    const token = newSecret('cbt');
    return {
      timeoutSeconds: parsed.data.timeout ?? maxWaitSeconds,
      fields: { callbackId, tokenHash: sha256Hex(token) },
      reply: { callbackId, callbackUrl: `${baseUrl()}${callbackUrlPath(owner.executionId, callbackId, token)}` },
    };
  },
});

/** Completing callbacks: the owner's POST to the callback route, or anyone's to the signed URL. */
export function createCallbacks(engine: Pick<DurableEngine, 'resolveWait'>, deps: { journal: Journal }) {
  /** The callback's wait in the run, if the run has one with that id. */
  async function findCallback(executionId: string, callbackId: string) {
    const entries = await deps.journal.outline(executionId);
    return entries.find((entry) => entry.type === 'callback' && entry.fields?.callbackId === callbackId);
  }

  async function complete(executionId: string, callbackId: string, outcome: WaitOutcome) {
    const entry = await findCallback(executionId, callbackId);
    if (!entry) throw unknownCallback(callbackId);
    if (await engine.resolveWait(executionId, entry.name, outcome)) return;
    const now = (await findCallback(executionId, callbackId)) ?? entry;
    // A wait is cancelled only by its run's end: say which end.
    const at = now.endedAt ? ` at ${now.endedAt}` : '';
    const why =
      now.status === 'cancelled'
        ? `is cancelled: its run ${executionId} ${(await deps.journal.getRun(executionId))?.state === 'cancelled' ? 'was cancelled' : 'ended'}`
        : now.status === 'succeeded'
          ? `was already completed${at}: a callback takes one completion`
          : now.error?.code === 'TIMEOUT'
            ? `timed out${at}: the run went on without it`
            : `was already completed with an error${at}: a callback takes one completion`;
    throw new DurableError(durableErrorCodes.conflict, `callback ${callbackId} ${why}`, { callbackId, status: now.status, endedAt: now.endedAt });
  }

  return {
    /** The owner's completion (the caller's ownership of the execution is checked before). */
    complete,
    /** A POST to the signed URL: a wrong token is as unknown as a wrong id; a used one finds the wait ended. */
    async completeWithToken(executionId: string, callbackId: string, token: string, outcome: WaitOutcome) {
      const entry = await findCallback(executionId, callbackId);
      const stored = typeof entry?.fields?.tokenHash === 'string' ? Buffer.from(entry.fields.tokenHash, 'hex') : undefined;
      const presented = Buffer.from(sha256Hex(token), 'hex');
      if (!entry || !stored || stored.length !== presented.length || !timingSafeEqual(stored, presented)) throw unknownCallback(callbackId);
      await complete(executionId, callbackId, outcome);
    },
  };
}

export type DurableCallbacks = ReturnType<typeof createCallbacks>;
