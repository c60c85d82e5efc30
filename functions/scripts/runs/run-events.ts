// A run followed live as server-sent events (GET /api/sdk/v1/executions/{executionId}/events): its log lines as they are
// written (with their invocation and step), its steps and status when they change, then `end`, after which the stream
// closes. Each event's id is the position the stream has reached, so a client that reconnects with Last-Event-ID gets
// what came after it and nothing twice. The stream reads the run again every `pollMs`, ends by itself after its window
// (the client reconnects, as `retry` says), says it is alive with a comment every `heartbeatMs` of quiet, and a key
// holds at most `maxOpenStreams` at once.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '#platform/clock.js';
import { TooManyRequestsError, ValidationError } from '#platform/errors.js';
import type { RateLimiter } from '#platform/ports.js';
import type { StepView } from '../../durable/api.js';
import { runStepsPage } from './execution-store.js';
import type { RunView } from './run-record.js';
import type { Runs } from './runs.js';

export const runEventLimits = {
  /** Between two reads of the run: each read is one record, its two log items and at most 100 steps. */
  pollMs: 500,
  /** A stream sent as produced (local mode) ends after this; the client reconnects with Last-Event-ID. */
  streamingWindowMs: 5 * 60_000,
  /** A stream sent whole (a Lambda behind API Gateway, which stops waiting at 30 s) ends at its first events or this. */
  bufferedWindowMs: 20_000,
  heartbeatMs: 15_000,
  /** The `retry` each stream announces: how long a client waits before it reconnects. */
  retryMs: 1000,
  /** Streams one API key may hold open at once. */
  maxOpenStreams: 5,
} as const;

/** Where a client is: lines sent, a digest of the steps it has, the status it has (`-`: none yet). */
export interface RunPosition {
  lines: number;
  steps: string;
  status: string;
}

const start: RunPosition = { lines: 0, steps: '-', status: '-' };
const positionPattern = /^(\d{1,7})\.([0-9a-f]{8}|-)\.([a-z]{1,12}|-)$/;
const goingOn = new Set(['queued', 'running', 'waiting']);

export const positionId = (position: RunPosition) => `${position.lines}.${position.steps}.${position.status}`;

/** A Last-Event-ID this stream gave out, or none; anything else is refused before the stream opens. */
export function parsePosition(lastEventId: string | undefined): RunPosition {
  if (lastEventId === undefined || lastEventId === '') return start;
  const match = positionPattern.exec(lastEventId);
  if (!match) throw new ValidationError('lastEventId', lastEventId.slice(0, 64), 'must be the id of an event of this stream, as <lines>.<steps>.<status>');
  return { lines: Number(match[1]), steps: match[2]!, status: match[3]! };
}

/** What a step event carries: its state, not its result (the run's record has it). */
const stepState = ({ name, type, status, startedAt, endedAt, error, wakeAt, childExecutionId }: StepView) => ({
  name,
  type,
  status,
  startedAt,
  endedAt,
  ...(error && { error }),
  ...(wakeAt && { wakeAt }),
  ...(childExecutionId && { childExecutionId }),
});

/** FNV-1a, 32 bits: steps that changed have another digest. */
function digest(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, '0');
}

const frame = (event: string, id: string, data: unknown) => `event: ${event}\nid: ${id}\ndata: ${JSON.stringify(data)}\n\n`;

/** The events that take a client from `seen` to `run`, and the position they reach. */
function changes(run: RunView, seen: RunPosition): { text: string; position: RunPosition } {
  let text = '';
  const position = { ...seen };
  run.logLines.slice(seen.lines).forEach((line, offset) => {
    position.lines = seen.lines + offset + 1;
    text += frame('log', positionId(position), { index: position.lines - 1, ...line });
  });
  const steps = run.steps.map(stepState);
  const stepsDigest = steps.length ? digest(JSON.stringify(steps)) : '-';
  if (stepsDigest !== seen.steps) {
    position.steps = stepsDigest;
    text += frame('steps', positionId(position), { steps });
  }
  if (run.status !== seen.status) {
    position.status = run.status;
    text += frame('status', positionId(position), { status: run.status });
  }
  return { text, position };
}

export interface RunEventsDeps {
  runs: Pick<Runs, 'get'>;
  limiter: Pick<RateLimiter, 'hold'>;
  clock: Clock;
  /** Whether the answer is sent as produced (local mode) or whole (a Lambda: then it ends at its first events). */
  streaming: boolean;
}

export function createRunEvents(deps: RunEventsDeps) {
  const limits = runEventLimits;
  const windowMs = deps.streaming ? limits.streamingWindowMs : limits.bufferedWindowMs;
  const read = (userId: string, executionId: string) => deps.runs.get(userId, executionId, runStepsPage);

  return {
    /**
     * The caller's run as a stream of events after `lastEventId`; another user's run is NOT_FOUND and a key past its
     * open streams is RATE_LIMITED, both before the stream opens.
     */
    async open(caller: { userId: string; keyId: string }, executionId: string, lastEventId: string | undefined) {
      const from = parsePosition(lastEventId);
      const first = await read(caller.userId, executionId);
      const hold = await deps.limiter.hold(`runEvents#${caller.keyId}`, limits.maxOpenStreams, windowMs + limits.pollMs * 4);
      if (!hold)
        throw new TooManyRequestsError(
          'RATE_LIMITED',
          `this API key already has ${limits.maxOpenStreams} run event streams open; close one (each ends within ${windowMs / 1000} s)`,
          Math.ceil(limits.retryMs / 1000),
        );

      return async function* events(stopped: AbortSignal): AsyncGenerator<string> {
        try {
          yield `retry: ${limits.retryMs}\n\n`;
          const until = deps.clock.now() + windowMs;
          let run = first;
          let seen = from;
          let quietSince = deps.clock.now();
          for (;;) {
            const { text, position } = changes(run, seen);
            seen = position;
            if (text) {
              yield text;
              quietSince = deps.clock.now();
            }
            if (!goingOn.has(run.status)) {
              // Lines written just before the end reach the client before `end`.
              const last = changes(await read(caller.userId, executionId), seen);
              seen = last.position;
              yield `${last.text}${frame('end', positionId(seen), { status: run.status, error: run.error, duration: run.duration, endedAt: run.endedAt })}`;
              return;
            }
            if ((text && !deps.streaming) || deps.clock.now() >= until || stopped.aborted) return;
            if (deps.clock.now() - quietSince >= limits.heartbeatMs) {
              yield ': heartbeat\n\n';
              quietSince = deps.clock.now();
            }
            await sleep(Math.min(limits.pollMs, Math.max(0, until - deps.clock.now())), undefined, { signal: stopped }).catch(() => undefined);
            if (stopped.aborted) return;
            run = await read(caller.userId, executionId);
          }
        } finally {
          await hold.release();
        }
      };
    },
  };
}

export type RunEvents = ReturnType<typeof createRunEvents>;
