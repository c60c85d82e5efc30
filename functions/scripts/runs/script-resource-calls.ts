// `resources[name][method](params)` of a script deployed as a Lambda function: its wrapper invokes the resource-call
// function with the run's signed grant. The grant names the run's user, allowedResources and cost allowance; the
// rules are the in-process ones (resource-gate.ts), the tally is in DynamoDB (run-tallies.ts).
import * as z from 'zod';
import type { Clock } from '#platform/clock.js';
import { AppError } from '#platform/errors.js';
import { logger } from '#platform/logger.js';
import { JsonObject } from '#platform/schemas.js';
import type { ResourceCaller } from '#platform/ports.js';
import { CodedError, type RunTally, resourceGate } from './resource-gate.js';
import { type RunGrant, verifyGrant } from './run-grant.js';
import { durableChannel } from './runner.js';
import { DurableError } from '../../durable/api.js';

export const ScriptResourceCallInput = z.object({
  token: z.string(),
  resource: z.string().min(1),
  method: z.string().min(1),
  params: JsonObject.default({}),
});

/** What the wrappers turn back into the value, or the coded error, the local worker gives a script. */
export type ScriptResourceCallAnswer = { ok: true; data: unknown } | { ok: false; error: { code: string; message: string } };

export function createScriptResourceCalls(deps: {
  key: () => Promise<Uint8Array>;
  tallies: { forRun(executionId: string): RunTally };
  caller: () => ResourceCaller;
  clock: Clock;
  /** A durable run's checkpoint, which its wrapper sends over the same channel (functions/durable/). */
  checkpoint: (grant: RunGrant, method: string, params: Record<string, unknown>) => Promise<unknown>;
}) {
  const { clock } = deps;
  return {
    async call(event: unknown): Promise<ScriptResourceCallAnswer> {
      const input = ScriptResourceCallInput.safeParse(event);
      if (!input.success) {
        const issue = input.error.issues[0]!;
        return { ok: false, error: { code: 'VALIDATION_ERROR', message: `${issue.path.join('.') || 'input'}: ${issue.message}` } };
      }
      const { token, resource, method, params } = input.data;
      try {
        const grant = verifyGrant(token, await deps.key(), clock.now());
        if (resource === durableChannel) return { ok: true, data: await deps.checkpoint(grant, method, params) };
        const gate = resourceGate({
          grant,
          tally: deps.tallies.forRun(grant.executionId),
          caller: deps.caller(),
          elapsedMs: () => clock.now() - grant.startedAt,
        });
        return { ok: true, data: (await gate(resource, method, params)) ?? null };
      } catch (error) {
        if (error instanceof CodedError || error instanceof AppError || error instanceof DurableError)
          return { ok: false, error: { code: error.code, message: error.message } };
        logger.error('script resource call failed', { resource, method, error: (error as Error).message });
        return { ok: false, error: { code: 'RESOURCE_CALL_FAILED', message: 'the resource call failed' } };
      }
    },
  };
}
