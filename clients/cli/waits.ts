// What a waiting durable run waits for, in text mode: each open wait and the exact command that continues it.

interface WaitingStep {
  name: string;
  type: string;
  status: string;
  wakeAt?: string;
  callbackId?: string;
  approvalId?: string;
  eventType?: string;
  childExecutionId?: string;
}

const until = (step: WaitingStep) => (step.wakeAt ? ` until ${step.wakeAt}` : '');

/** Two lines per open wait: what it waits for, and the command that continues it (or how to follow it). */
function waitLines(executionId: string, step: WaitingStep): string[] {
  switch (step.type) {
    case 'wait':
      return [`waits for timer ${step.name}${until(step)}`, `  it continues by itself; follow it: platform runs get ${executionId}`];
    case 'callback':
      return [
        `waits for callback ${step.name} (id ${step.callbackId})${until(step)}`,
        `  continue it: platform runs callback ${executionId} ${step.callbackId} --result '<json>'`,
      ];
    case 'approval':
      return [`waits for approval ${step.name} (${step.approvalId})${until(step)}`, `  continue it: platform approvals approve ${step.approvalId}`];
    case 'event':
      return [`waits for event ${step.eventType} (wait ${step.name})${until(step)}`, `  continue it: platform events emit ${step.eventType} --data '<json>'`];
    case 'invoke':
      return [`waits for child run ${step.childExecutionId} (${step.name})`, `  follow it: platform runs get ${step.childExecutionId}`];
    default:
      return [`waits in ${step.type} ${step.name}`, `  follow it: platform runs get ${executionId}`];
  }
}

/** The open waits of a run's steps; a run that waits on none it lists says how to follow it. */
export function waitingLines(run: { executionId: string; steps?: readonly WaitingStep[] }): string[] {
  const open = (run.steps ?? []).filter((step) => step.status === 'waiting' && step.type !== 'map' && step.type !== 'parallel');
  return open.length ? open.flatMap((step) => waitLines(run.executionId, step)) : [`follow it: platform runs get ${run.executionId}`];
}
