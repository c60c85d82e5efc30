// One run: status (a waiting run says what it waits for), logs, output, cost and duration, a durable run's steps as a
// timeline, its pending approval with approve and reject, and the actions: cancel a running or waiting run, re-run it
// from the start or from a chosen step. Followed live (polling) while it runs or waits.
import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { ApprovalFacts, DecisionForm, approvalsChanged, decideWithKey, usePendingApprovals } from '../approvals';
import { api, unwrap } from '../api';
import { nameOf, useScripts } from '../pickers';
import { StepTimeline } from '../timeline';
import { Busy, ErrorMessage, Field, type Rec, money, usePolling, useAction, useLoad, when } from '../ui';

const unfinished = (status: unknown) => status === 'running' || status === 'waiting';

/** What a waiting run waits for, from its open step. */
function waitingFor(steps: Rec[]): string {
  const open = steps.find((step) => step.status === 'waiting' || step.status === 'pending');
  if (!open) return 'Waiting';
  if (open.type === 'wait') return `Sleeping in "${open.name}" until ${when(open.wakeAt)}`;
  const awaited = { callback: 'a callback', event: 'an event', approval: 'an approval' }[open.type as string] ?? 'its step';
  return `Waiting in "${open.name}" for ${awaited}`;
}

/**
 * A run's log lines. A durable run's show where each invocation begins (a resumed run runs its code again, and the
 * steps that finished before are not repeated) and the step each line was printed in.
 */
function RunLogs({ lines }: { lines: Rec[] }) {
  const durable = lines.some((line) => line.invocation > 1 || line.step !== undefined);
  return (
    <pre class="logs" role="log" aria-label="Logs" aria-live="polite">
      {lines.length === 0 && '(no log lines)'}
      {lines.map((line, index) => (
        <Fragment key={index}>
          {durable && line.invocation !== lines[index - 1]?.invocation && (
            <span class="log-invocation">{`── invocation ${line.invocation}${line.invocation > 1 ? ', resumed' : ''} ──\n`}</span>
          )}
          {durable && line.step !== undefined && <span class="log-step">{`[${line.step}] `}</span>}
          {`${line.text}\n`}
        </Fragment>
      ))}
    </pre>
  );
}

function Actions({ run, onChanged }: { run: Rec; onChanged(): void }) {
  const [fromStep, setFromStep] = useState('');
  const [confirming, setConfirming] = useState(false);
  const { run: act, status } = useAction();
  const executionId = run.executionId as string;
  const cancel = async () => {
    setConfirming(false);
    if (await act('Cancelling the run', () => unwrap(api().POST('/api/sdk/v1/executions/{executionId}/cancel', { params: { path: { executionId } } }))))
      onChanged();
  };
  const rerun = async (event: Event) => {
    event.preventDefault();
    const started: Rec | undefined = await act('Starting the re-run', () =>
      unwrap(
        api().POST('/api/sdk/v1/executions/{executionId}/rerun', {
          params: { path: { executionId } },
          body: fromStep ? { fromStep } : {},
        }),
      ),
    );
    if (started) location.hash = `#/runs/${encodeURIComponent(started.executionId)}`;
  };
  const steps = (run.steps ?? []) as Rec[];
  return (
    <section aria-label="Actions">
      <h3>Actions</h3>
      {unfinished(run.status) &&
        (confirming ? (
          <fieldset class="row">
            <legend>Cancel this run? Its open step stops, and later wake-ups, callbacks and decisions are refused.</legend>
            <button type="button" class="danger" onClick={cancel}>
              Yes, cancel the run
            </button>
            <button type="button" class="secondary" onClick={() => setConfirming(false)}>
              Keep it
            </button>
          </fieldset>
        ) : (
          <button type="button" class="danger" onClick={() => setConfirming(true)}>
            Cancel the run
          </button>
        ))}
      <form class="row" aria-label="Re-run" onSubmit={rerun}>
        <Field label="Re-run from" hint="Steps before the chosen one keep their stored results; from the start runs every step again.">
          <select value={fromStep} onChange={(event) => setFromStep(event.currentTarget.value)}>
            <option value="">the start</option>
            {steps.map((step) => (
              <option value={step.name}>
                step {step.name} ({step.type})
              </option>
            ))}
          </select>
        </Field>
        <button type="submit">Re-run</button>
      </form>
      {status}
    </section>
  );
}

/** The pending approvals of this run that the signed-in user may decide. */
function RunApprovals({ executionId, status }: { executionId: string; status: string }) {
  const pending = usePendingApprovals([executionId, status]);
  const mine = ((pending.data?.approvals ?? []) as Rec[]).filter((item) => item.executionId === executionId && item.status === 'pending');
  if (mine.length === 0) return null;
  return (
    <section aria-label="Pending approval">
      <h3>Pending approval</h3>
      {mine.map((approval) => (
        <div class="card">
          <ApprovalFacts approval={approval} />
          <DecisionForm label={`Decide ${approval.name}`} decide={decideWithKey(approval.approvalId)} onDecided={approvalsChanged} />
        </div>
      ))}
    </section>
  );
}

export function RunDetail({ executionId }: { executionId: string }) {
  const [run, setRun] = useState<Rec>();
  const [error, setError] = useState<unknown>();
  const [loads, setLoads] = useState(0);
  usePolling(
    async () => {
      try {
        const found: Rec = await unwrap(api().POST('/api/sdk/v1/scripts/getExecution', { body: { executionId } }));
        setRun(found);
        return !unfinished(found.status);
      } catch (failure) {
        setError(failure);
        return true;
      }
    },
    1000,
    [executionId, loads],
  );
  const summary = useLoad(
    (): Promise<Rec> => unwrap(api().GET('/api/sdk/v1/executions', { params: { query: { limit: 100 } as never } })),
    [executionId, run?.status],
  );
  const listed = (summary.data?.executions as Rec[] | undefined)?.find((item) => item.executionId === executionId);
  const scripts = useScripts();
  const steps = (run?.steps ?? []) as Rec[];
  return (
    <section aria-label={`Run ${executionId}`}>
      <h2>
        Run {executionId}
        {run && <> of {nameOf(scripts.data, run.scriptId)}</>}
      </h2>
      <ErrorMessage error={error} />
      {!run && !error && <Busy label="Loading the run" />}
      {run && (
        <>
          <dl>
            <dt>Status</dt>
            <dd>
              <span class={`badge status-${run.status}`}>{run.status}</span>
              {run.status === 'running' && <Busy label="Following its logs" />}
              {run.status === 'waiting' && (
                <p class="waiting" role="status">
                  {waitingFor(steps)}. A waiting run holds no worker and none of the script's run slots.
                </p>
              )}
            </dd>
            <dt>Script</dt>
            <dd>
              <a href={`#/scripts/${encodeURIComponent(run.scriptId)}`}>{nameOf(scripts.data, run.scriptId)}</a>
            </dd>
            <dt>Duration</dt>
            <dd>{run.duration} ms</dd>
            <dt>Cost</dt>
            <dd>{money(listed?.cost)}</dd>
            <dt>Started</dt>
            <dd>{when(run.createdAt)}</dd>
          </dl>
          <RunApprovals executionId={executionId} status={run.status} />
          <h3>Steps</h3>
          <StepTimeline steps={steps} runStart={run.createdAt} now={Date.now()} />
          <Actions run={{ ...run, executionId }} onChanged={() => setLoads(loads + 1)} />
          <h3>Logs</h3>
          <RunLogs lines={(run.logLines ?? []) as Rec[]} />
          <h3>Output</h3>
          <pre role="document" aria-label="Output">
            {JSON.stringify(run.error ?? run.output, null, 2)}
          </pre>
        </>
      )}
      <a href="#/runs">All runs</a>
    </section>
  );
}
