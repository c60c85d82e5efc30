// One run of a script or of a flow: its kind, status (a waiting run says what it waits for) and failure reason, trigger,
// times, cost; its family (parent, root, the run it re-runs, its children); a durable run's steps as a timeline; logs by
// invocation; output; its pending approval with approve and reject; and the actions: cancel a running or waiting run,
// re-run it from the start or from a chosen step. Followed live (the run's event stream) while it is not ended.
import { useEffect, useState } from 'preact/hooks';
import { ApprovalFacts, DecisionForm, approvalsChanged, decideWithKey, usePendingApprovals } from '../approvals';
import { api, unwrap } from '../api';
import { JsonTree } from '../json-tree';
import { nameOf, useFlows, useScripts } from '../pickers';
import { followRunLive, withEvent } from '../run-stream';
import { StepTimeline, duration } from '../timeline';
import { Busy, ErrorMessage, Field, type Rec, RunLink, useAction, useLoad } from '../ui';
import { money } from '../money';
import { Time, when } from '../time';

const unfinished = (status: unknown) => status === 'queued' || status === 'running' || status === 'waiting';

/** What a waiting run waits for, from its open step. */
function waitingFor(steps: Rec[]): string {
  const open = steps.find((step) => step.status === 'waiting' || step.status === 'pending');
  if (!open) return 'Waiting';
  if (open.type === 'wait') return `Sleeping in "${open.name}" until ${when(open.wakeAt)}`;
  const awaited = { callback: 'a callback', event: 'an event', approval: 'an approval' }[open.type as string] ?? 'its step';
  return `Waiting in "${open.name}" for ${awaited}`;
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

/** The run's children: the runs listed under it (a flow run's script run) and the children its invoke steps name. */
function useChildren(executionId: string, steps: Rec[], status: unknown): string[] {
  const listed = useLoad(
    (): Promise<Rec> => unwrap(api().GET('/api/sdk/v1/executions', { params: { query: { parentExecutionId: executionId, limit: 100 } } })),
    [executionId, status],
  );
  const ids = [
    ...((listed.data?.executions ?? []) as Rec[]).map((child) => child.executionId as string),
    ...steps.flatMap((step) => (step.childExecutionId ? [step.childExecutionId as string] : [])),
  ];
  return [...new Set(ids)];
}

/** Where the run stands among others: its parent and root, the run it re-runs, and its children. */
function RunFamily({ run, children }: { run: Rec; children: string[] }) {
  const { parentExecutionId: parent, rootExecutionId: root, origin } = run;
  if (!parent && (!root || root === run.executionId) && !origin && children.length === 0) return null;
  return (
    <section class="run-family" aria-label="Family">
      <dl>
        {origin && (
          <>
            <dt>Re-run of</dt>
            <dd>
              {<RunLink executionId={origin.executionId} />}
              {origin.fromStep ? <> from step {origin.fromStep}</> : <> from the start</>}
            </dd>
          </>
        )}
        {parent && (
          <>
            <dt>Parent run</dt>
            <dd>{<RunLink executionId={parent} />}</dd>
          </>
        )}
        {root && root !== run.executionId && root !== parent && (
          <>
            <dt>Root run</dt>
            <dd>{<RunLink executionId={root} />}</dd>
          </>
        )}
        {children.length > 0 && (
          <>
            <dt>Child runs</dt>
            <dd>
              <ul aria-label="Child runs">
                {children.map((child) => (
                  <li>{<RunLink executionId={child} />}</li>
                ))}
              </ul>
            </dd>
          </>
        )}
      </dl>
    </section>
  );
}

/** The run's log lines, each invocation's under its own heading when the run was resumed, each line with its step. */
function RunLogs({ run }: { run: Rec }) {
  const lines = (run.logLines ?? ((run.logs ?? []) as string[]).map((text) => ({ text, invocation: 1 }))) as Rec[];
  const resumed = lines.some((line) => line.invocation > 1);
  return (
    <pre class="logs" role="log" aria-label="Logs" aria-live="polite">
      {lines.length === 0
        ? '(no log lines)'
        : lines.map((line, index) => (
            <>
              {resumed && line.invocation !== lines[index - 1]?.invocation && <span class="invocation">{`Invocation ${line.invocation}\n`}</span>}
              {line.step && <span class="log-step">[{line.step}] </span>}
              {`${line.text}\n`}
            </>
          ))}
    </pre>
  );
}

export function RunDetail({ executionId }: { executionId: string }) {
  const [run, setRun] = useState<Rec>();
  const [error, setError] = useState<unknown>();
  const [loads, setLoads] = useState(0);
  useEffect(() => {
    const leaving = new AbortController();
    const load = async () => {
      const found: Rec = await unwrap(api().GET('/api/sdk/v1/executions/{executionId}', { params: { path: { executionId } } }));
      // A record read before the stream's latest lines keeps those lines.
      if (!leaving.signal.aborted)
        setRun((current) =>
          current && current.logLines?.length > found.logLines?.length ? { ...found, logLines: current.logLines, logs: current.logs } : found,
        );
      return found;
    };
    // New lines and steps merge into the record; a new status brings the whole record again (output, reason, children).
    const follow = async () => {
      if (!unfinished((await load()).status)) return;
      await followRunLive(
        executionId,
        (event) => {
          if (event.type === 'status' || event.type === 'end') void load().catch(setError);
          else setRun((current) => current && withEvent(current, event));
        },
        leaving.signal,
      );
    };
    follow().catch(setError);
    return () => leaving.abort();
  }, [executionId, loads]);
  const scripts = useScripts();
  const flows = useFlows();
  const steps = (run?.steps ?? []) as Rec[];
  const children = useChildren(executionId, steps, run?.status);
  const of = run?.kind === 'flow' ? nameOf(flows.data, run.flowId) : run && nameOf(scripts.data, run.scriptId);
  return (
    <section aria-label={`Run ${executionId}`}>
      <h2>
        Run {executionId}
        {run && <> of {of}</>}
      </h2>
      <ErrorMessage error={error} />
      {!run && !error && <Busy label="Loading the run" />}
      {run && (
        <>
          <dl aria-label="Run">
            <dt>Kind</dt>
            <dd>{run.kind === 'flow' ? 'flow run' : 'script run'}</dd>
            <dt>Status</dt>
            <dd>
              <span class={`badge status-${run.status}`}>{run.status}</span>
              {run.status === 'running' && <Busy label="Following its logs live" />}
              {run.status === 'waiting' && (
                <p class="waiting" role="status">
                  {waitingFor(steps)}. A waiting run holds no worker and none of the script's run slots.
                </p>
              )}
            </dd>
            {run.error && (
              <>
                <dt>Reason</dt>
                <dd class="run-reason">
                  {run.error.code}: {run.error.message}
                </dd>
              </>
            )}
            {run.flowId && (
              <>
                <dt>Flow</dt>
                <dd>
                  <a href={`#/flows/${encodeURIComponent(run.flowId)}`}>{nameOf(flows.data, run.flowId)}</a>
                </dd>
              </>
            )}
            {run.scriptId && (
              <>
                <dt>Script</dt>
                <dd>
                  <a href={`#/scripts/${encodeURIComponent(run.scriptId)}`}>{nameOf(scripts.data, run.scriptId)}</a>
                </dd>
              </>
            )}
            <dt>Trigger</dt>
            <dd>
              {run.trigger?.type}
              {run.trigger?.source && <> ({run.trigger.source})</>}
            </dd>
            <dt>Started</dt>
            <dd>{when(run.startedAt ?? run.createdAt)}</dd>
            <dt>Ended</dt>
            <dd>
              <Time value={run.endedAt} />
            </dd>
            <dt>Duration</dt>
            <dd>{typeof run.duration === 'number' ? duration(run.duration) : '–'}</dd>
            <dt>Cost</dt>
            <dd>{money(run.cost)}</dd>
          </dl>
          <RunFamily run={{ ...run, executionId }} children={children} />
          <RunApprovals executionId={executionId} status={run.status} />
          <h3>Steps</h3>
          <StepTimeline steps={steps} runStart={run.startedAt ?? run.createdAt} now={Date.now()} />
          <Actions run={{ ...run, executionId }} onChanged={() => setLoads(loads + 1)} />
          <h3>Logs</h3>
          <RunLogs run={run} />
          <h3>Output</h3>
          <JsonTree value={run.error ?? run.output} label="Output" />
        </>
      )}
      <a href="#/runs">All runs</a>
    </section>
  );
}
