// A durable run's steps as a timeline: one entry per checkpoint in the order the run reached it, each with its kind,
// status, start, end and duration, a bar placed on the run's own time axis, a wait's wake-up time, and its result or
// error behind a disclosure (results can be large). A map's or parallel's branches are nested under it (step-groups.ts),
// an invoke links its child run, and a step a re-run kept from the earlier run says so, its times being that run's.
import { type BranchRow, type StepRow, groupSteps, unwrittenFanOut } from '../../clients/typescript/src/index';
import { type Rec, RunLink } from './ui';
import { Time, when } from './time';

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
  invoke: 'child run',
  map: 'map',
  parallel: 'parallel',
  [unwrittenFanOut]: 'branches',
};

/** What a step that has not ended is doing, in words. */
function pendingLabel(step: Rec): string {
  if (step.status !== 'waiting' && step.status !== 'pending') return step.status;
  if (step.type === 'wait') return step.wakeAt ? `sleeping until ${when(step.wakeAt)}` : 'sleeping';
  const awaited = { callback: 'a callback', event: 'an event', approval: 'an approval', invoke: 'its child run' }[step.type as string];
  const deadline = step.wakeAt ? ` (times out ${when(step.wakeAt)})` : '';
  return awaited ? `waiting for ${awaited}${deadline}` : step.status;
}

/** A step entry as the API answers it, read loosely. */
type Step = Rec & { name: string; type: string };

const time = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? new Date(value).getTime() : undefined);

/** The run's own time axis: kept steps ran in the earlier run and stay off it. */
interface Axis {
  origin: number;
  span: number;
  now: number;
}

function Payload({ step }: { step: Rec }) {
  const payload = step.error ?? step.result;
  if (payload === undefined) return null;
  return (
    <details>
      <summary>{step.error ? 'Error' : 'Result'}</summary>
      <pre role="document" aria-label={`${step.error ? 'Error' : 'Result'} of ${step.name}`}>
        {JSON.stringify(payload, null, 2)}
      </pre>
    </details>
  );
}

function StepItem({ row, axis }: { row: StepRow<Step>; axis: Axis }) {
  const { step } = row;
  const start = time(step.startedAt) ?? axis.now;
  const ended = time(step.endedAt);
  const end = ended ?? Math.max(axis.now, time(step.wakeAt) ?? 0, start);
  const earlier = step.kept ? ' in the earlier run' : '';
  return (
    <li class={`step step-${step.status}${step.kept ? ' step-kept' : ''}`} aria-label={`Step ${step.name}`}>
      <div class="step-head">
        <strong>{row.label}</strong> <span class="badge">{stepKinds[step.type] ?? step.type}</span>{' '}
        <span class={`badge status-${step.status}`}>{pendingLabel(step)}</span>
        {step.kept && <span class="badge kept">kept from the earlier run</span>}
      </div>
      {!step.kept && (
        <div class="bar" aria-hidden="true">
          <span style={{ left: `${((start - axis.origin) / axis.span) * 100}%`, width: `${Math.max(0.5, ((end - start) / axis.span) * 100)}%` }} />
        </div>
      )}
      <dl>
        {step.childExecutionId && (
          <>
            <dt>Child run</dt>
            <dd>{<RunLink executionId={step.childExecutionId} />}</dd>
          </>
        )}
        <dt>Started{earlier}</dt>
        <dd>
          <Time value={step.startedAt} />
        </dd>
        <dt>Ended{earlier}</dt>
        <dd>
          <Time value={step.endedAt} />
        </dd>
        <dt>Duration</dt>
        <dd>{ended === undefined ? `${duration(axis.now - start)} so far` : duration(ended - start)}</dd>
        {/* A sleep's wake-up stays worth seeing; a decided approval's or callback's deadline does not. */}
        {step.wakeAt && (step.type === 'wait' || ended === undefined) && (
          <>
            <dt>{step.type === 'wait' ? 'Wakes up' : 'Times out'}</dt>
            <dd>
              <Time value={step.wakeAt} />
            </dd>
          </>
        )}
      </dl>
      <Payload step={step} />
      {row.branches && (
        <ol class="branches" aria-label={`Branches of ${step.name}`}>
          {row.branches.map((branch) => (
            <BranchItem branch={branch} axis={axis} />
          ))}
        </ol>
      )}
    </li>
  );
}

function BranchItem({ branch, axis }: { branch: BranchRow<Step>; axis: Axis }) {
  const status = branch.step?.status ?? 'running';
  return (
    <li class={`branch step-${status}`} aria-label={`Branch ${branch.name}`}>
      <div class="step-head">
        <strong>{branch.name}</strong> <span class="badge">branch</span> <span class={`badge status-${status}`}>{status}</span>
        {branch.step?.kept && <span class="badge kept">kept from the earlier run</span>}
      </div>
      {branch.step && <Payload step={branch.step} />}
      {branch.rows.length > 0 && (
        <ol class="timeline" aria-label={`Steps of ${branch.name}`}>
          {branch.rows.map((row) => (
            <StepItem row={row} axis={axis} />
          ))}
        </ol>
      )}
    </li>
  );
}

export function StepTimeline({ steps, runStart, now }: { steps: Rec[]; runStart?: string; now: number }) {
  if (steps.length === 0) return <p class="empty">This run has no steps: only durable scripts checkpoint their work.</p>;
  const timed = steps.filter((step) => !step.kept);
  const starts = timed.map((step) => time(step.startedAt) ?? now);
  const origin = Math.min(time(runStart) ?? now, ...starts);
  const ends = timed.map((step, index) => time(step.endedAt) ?? Math.max(now, time(step.wakeAt) ?? 0, starts[index]!));
  const axis = { origin, span: Math.max(1, Math.max(origin, ...ends) - origin), now };
  return (
    <ol class="timeline" aria-label="Steps">
      {groupSteps(steps as Step[]).map((row) => (
        <StepItem row={row} axis={axis} />
      ))}
    </ol>
  );
}
