// A durable run's steps as a timeline: one entry per checkpoint in the order the run reached it, each with its kind,
// status, start, end and duration, a bar placed on the run's own time axis, a wait's wake-up time, and its result or
// error behind a disclosure (results can be large).
import { type Rec, when } from './ui';

/** Milliseconds as a person reads a duration: 850 ms, 4.2 s, 3 min 5 s, 2 h 10 min, 3 d 4 h. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const units: [string, number][] = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['min', 60_000],
    ['s', 1000],
  ];
  const parts: string[] = [];
  let rest = ms;
  for (const [unit, size] of units) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0 || parts.length > 0) parts.push(`${count} ${unit}`);
  }
  // Two units say enough ("3 d 4 h"); a zero second unit says nothing.
  return parts
    .slice(0, 2)
    .filter((part) => !part.startsWith('0 '))
    .join(' ');
}

const stepKinds: Record<string, string> = {
  step: 'step',
  wait: 'sleep',
  callback: 'callback',
  event: 'event',
  approval: 'approval',
};

/** What a step that has not ended is doing, in words. */
function pendingLabel(step: Rec): string {
  if (step.status !== 'waiting' && step.status !== 'pending') return step.status;
  if (step.type === 'wait') return step.wakeAt ? `sleeping until ${when(step.wakeAt)}` : 'sleeping';
  const awaited = { callback: 'a callback', event: 'an event', approval: 'an approval' }[step.type as string];
  const deadline = step.wakeAt ? ` (times out ${when(step.wakeAt)})` : '';
  return awaited ? `waiting for ${awaited}${deadline}` : step.status;
}

const time = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? new Date(value).getTime() : undefined);

export function StepTimeline({ steps, runStart, now }: { steps: Rec[]; runStart?: string; now: number }) {
  if (steps.length === 0) return <p class="empty">This run has no steps: only durable scripts checkpoint their work.</p>;
  const starts = steps.map((step) => time(step.startedAt) ?? now);
  const origin = Math.min(time(runStart) ?? Number.POSITIVE_INFINITY, ...starts);
  const ends = steps.map((step, index) => time(step.endedAt) ?? Math.max(now, time(step.wakeAt) ?? 0, starts[index]!));
  const span = Math.max(1, Math.max(...ends) - origin);
  return (
    <ol class="timeline" aria-label="Steps">
      {steps.map((step, index) => {
        const start = starts[index]!;
        const end = ends[index]!;
        const ended = time(step.endedAt);
        const payload = step.error ?? step.result;
        return (
          <li class={`step step-${step.status}`} aria-label={`Step ${step.name}`}>
            <div class="step-head">
              <strong>{step.name}</strong> <span class="badge">{stepKinds[step.type] ?? step.type}</span>{' '}
              <span class={`badge status-${step.status}`}>{pendingLabel(step)}</span>
            </div>
            <div class="bar" aria-hidden="true">
              <span style={{ left: `${((start - origin) / span) * 100}%`, width: `${Math.max(0.5, ((end - start) / span) * 100)}%` }} />
            </div>
            <dl>
              <dt>Started</dt>
              <dd>{when(step.startedAt)}</dd>
              <dt>Ended</dt>
              <dd>{when(step.endedAt)}</dd>
              <dt>Duration</dt>
              <dd>{ended === undefined ? `${duration(now - start)} so far` : duration(ended - start)}</dd>
              {/* A sleep's wake-up stays worth seeing; a decided approval's or callback's deadline does not. */}
              {step.wakeAt && (step.type === 'wait' || ended === undefined) && (
                <>
                  <dt>{step.type === 'wait' ? 'Wakes up' : 'Times out'}</dt>
                  <dd>{when(step.wakeAt)}</dd>
                </>
              )}
            </dl>
            {payload !== undefined && (
              <details>
                <summary>{step.error ? 'Error' : 'Result'}</summary>
                <pre role="document" aria-label={`${step.error ? 'Error' : 'Result'} of ${step.name}`}>
                  {JSON.stringify(payload, null, 2)}
                </pre>
              </details>
            )}
          </li>
        );
      })}
    </ol>
  );
}
