// One conformance suite of the durable checkpoint and replay protocol (layers/script-runtime/durable-protocol.json):
// every journal fixture of test/conformance/durable/ (format: its README.md) runs against the node runtime (the real
// runtime.cjs, required here), the python runtime (the real platform_runtime.py in a python3 process) and the
// in-process runner (runDurably) and must give the same checkpoints and the same outcome in all three.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { DurableEngine } from '../../functions/durable/engine.js';
import { timerWaitKind } from '../../functions/durable/engine.js';
import { DurableError } from '../../functions/durable/errors.js';
import { runDurably } from '../../functions/durable/in-process.js';
import { StepName, durableErrorCodes, durableProtocol, unstorableResult } from '../../functions/durable/limits.js';

type Op = { op: string; name: string; catch?: boolean; [field: string]: unknown };
interface Fixture {
  about: string;
  journal: { entries: Record<string, unknown>; partial?: true };
  /** What the `entry` checkpoint answers, by name (null for a name not here). */
  entries?: Record<string, unknown>;
  program: Op[];
  checkpoints: Array<{ method: string; params: Record<string, unknown> }>;
  outcome: 'suspended' | { completed: unknown[] } | { failed: string };
}
type Checkpoint = Fixture['checkpoints'][number];
interface Ran {
  checkpoints: Checkpoint[];
  outcome: Fixture['outcome'];
}

const folder = fileURLToPath(new URL('./durable/', import.meta.url));
const fixtures = readdirSync(folder)
  .filter((file) => file.endsWith('.json'))
  .map((file) => [file.replace(/\.json$/, ''), JSON.parse(readFileSync(`${folder}${file}`, 'utf8')) as Fixture] as const);

/** A `returns` value; `{"$repeat": s, "times": n}` is s repeated n times (a result past a bound, without a huge fixture). */
const returnedValue = (returns: unknown) => {
  const repeat = returns as { $repeat?: string; times?: number } | null;
  return repeat !== null && typeof repeat === 'object' && repeat.$repeat !== undefined ? repeat.$repeat.repeat(repeat.times ?? 1) : returns;
};
const programError = (thrown: { code: string; message: string }) => Object.assign(new Error(thrown.message), { code: thrown.code });
/**
 * Fields of a checkpoint a fixture does not fix: the step's duration, and where the code called the operation (its
 * context and place, which the determinism guard compares on a resumed invocation; test/e2e/durable-fanout.test.ts).
 */
const runDependent = ['durationMs', 'context', 'position'];
const without = (params: Record<string, unknown>, ...fields: string[]) =>
  Object.fromEntries(Object.entries(params).filter(([field]) => !fields.includes(field)));
const defined = (fields: Record<string, unknown>) => Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
/** What the platform answers a checkpoint over the channel, as the engine does for one it accepts. */
const answer = (fixture: Fixture, method: string, params: Record<string, unknown>) => {
  if (method === 'step') return { result: params.error ? null : JSON.stringify(params.result ?? null), error: params.error ?? null };
  if (method === 'entry') return { entry: fixture.entries?.[params.name as string] ?? null };
  return { wakeAt: '2030-01-01T00:00:00.000Z', callbackId: 'cb_conformance', callbackUrl: 'http://callback.invalid/' };
};

/** The step API as node scripts and the in-process runner both call it (`waitFor` only in process). */
interface StepApi {
  step(name: string, fn: () => Promise<unknown>): Promise<unknown>;
  wait(name: string, duration: unknown): Promise<unknown>;
  waitForCallback(name: string, submitter: () => Promise<void>, options?: { timeout?: unknown }): Promise<unknown>;
  waitForApproval?(name: string, options: Record<string, unknown>): Promise<unknown>;
  waitForEvent?(name: string, options: Record<string, unknown>): Promise<unknown>;
  waitFor?(kind: string, name: string, args: unknown): Promise<unknown>;
}

function runOp(api: StepApi, op: Op): Promise<unknown> {
  const { name } = op;
  if (op.op === 'step')
    return api.step(name, async () => {
      if (op.throws) throw programError(op.throws as { code: string; message: string });
      return returnedValue(op.returns);
    });
  if (op.op === 'wait') return api.wait(name, op.duration);
  if (op.op === 'callback') return api.waitForCallback(name, async () => undefined, op.timeout ? { timeout: op.timeout } : {});
  const approval = defined({ approvers: op.approvers, message: op.message, timeout: op.timeout });
  const event = defined({ eventType: op.eventType, conditions: op.conditions, timeout: op.timeout });
  if (op.op === 'approval') return api.waitForApproval ? api.waitForApproval(name, approval) : api.waitFor!('approval', name, approval);
  if (op.op === 'event') return api.waitForEvent ? api.waitForEvent(name, event) : api.waitFor!('event', name, event);
  throw new Error(`unknown op ${op.op}`);
}

/** The program as a handler: each op's value in order, `{caught: code}` for an op that may throw; the code of what escaped. */
function programOf(fixture: Fixture) {
  const escaped: { code?: string } = {};
  const run = async (api: StepApi) => {
    const results: unknown[] = [];
    try {
      for (const op of fixture.program)
        results.push(
          await runOp(api, op).catch((error: { code?: string }) => {
            if (!op.catch) throw error;
            return { caught: error.code ?? null };
          }),
        );
    } catch (error) {
      escaped.code = (error as { code?: string }).code;
      throw error;
    }
    return results;
  };
  return { run, escaped };
}

const nodeRuntime = createRequire(import.meta.url)('../../layers/script-runtime/nodejs/runtime.cjs') as {
  captureOutput(): unknown;
  invoke(
    handler: unknown,
    capture: unknown,
    event: unknown,
    context: unknown,
    scriptFile: string,
    call: unknown,
  ): Promise<{ status: string; output: string; error: { code: string } | null }>;
};

const runtimes: Record<string, (fixture: Fixture) => Promise<Ran>> = {
  async node(fixture) {
    const checkpoints: Checkpoint[] = [];
    const call = async (name: string, method: string, params: Record<string, unknown>) => {
      expect(name).toBe(durableProtocol.channel);
      checkpoints.push({ method, params: without(params, ...runDependent) });
      return answer(fixture, method, params);
    };
    const { run, escaped } = programOf(fixture);
    const outcome = await nodeRuntime.invoke(
      (_event: unknown, context: StepApi) => run(context),
      nodeRuntime.captureOutput(),
      {},
      { durable: { journal: fixture.journal } },
      '/conformance/script.cjs',
      call,
    );
    if (outcome.status === 'suspended') return { checkpoints, outcome: 'suspended' };
    if (outcome.status === 'success') return { checkpoints, outcome: { completed: JSON.parse(outcome.output) } };
    return { checkpoints, outcome: { failed: escaped.code ?? outcome.error!.code } };
  },

  async python(fixture) {
    const output = execFileSync('python3', [`${folder}python_driver.py`], { input: JSON.stringify(fixture), encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
    return JSON.parse(output) as Ran;
  },

  async 'in-process'(fixture) {
    const checkpoints: Checkpoint[] = [];
    const owner = { executionId: 'exe_conformance', userId: 'usr_conformance', scriptId: 'scr_conformance' };
    // The engine's side of the channel: its own checks of what a checkpoint carries, then the fixture's answers.
    const refuse = (code: string, message: string) => {
      throw new DurableError(code, message);
    };
    const engine = {
      invocationJournal: async () => fixture.journal,
      async entry(_executionId: string, name: string) {
        checkpoints.push({ method: 'entry', params: { name } });
        return answer(fixture, 'entry', { name }).entry;
      },
      async checkpoint(_owner: unknown, method: string, params: Record<string, unknown>) {
        if (!StepName.safeParse(params.name).success) refuse(durableErrorCodes.invalidArgument, `${String(params.name)} is not a step name`);
        const unstorable = method === 'step' && !params.error ? unstorableResult(params.result) : undefined;
        if (unstorable) refuse(unstorable.code, unstorable.message);
        if (method === 'wait' && params.kind === 'wait') await timerWaitKind.open(owner, params.name as string, params.args);
        checkpoints.push({ method, params: without(params, ...runDependent) });
        return answer(fixture, method, params);
      },
      suspended: async () => undefined,
      finished: async () => true,
    } as unknown as DurableEngine;
    const { run, escaped } = programOf(fixture);
    try {
      const ran = await runDurably(engine, owner, 1, (context) => run(context as unknown as StepApi));
      return { checkpoints, outcome: ran.suspended ? 'suspended' : { completed: ran.value } };
    } catch (error) {
      return { checkpoints, outcome: { failed: escaped.code ?? (error as { code: string }).code } };
    }
  },
};

describe('durable protocol conformance: each journal fixture in every runtime', () => {
  it('has the fixtures the suite promises', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(12);
  });

  describe.each(fixtures)('%s', (_name, fixture) => {
    it.each(Object.keys(runtimes))(`${fixture.about} (%s)`, async (runtime) => {
      // Prepare: the fixture. Act
      const ran = await runtimes[runtime]!(fixture);
      // Assess
      expect(ran).toEqual({ checkpoints: fixture.checkpoints, outcome: fixture.outcome });
    });
  });
});
