// Approvals: an inbox of the runs waiting for the signed-in user's decision, a row each with what it asks, the run and
// its script or flow, when it expires, and approve or reject inline with an optional comment.
import { useState } from 'preact/hooks';
import { type Decision, DecisionForm, approvalsChanged, decideWithKey, usePendingApprovals } from '../approvals';
import { nameOf, useFlows, useScripts } from '../pickers';
import { Time } from '../time';
import { Loaded, type Rec, RunLink } from '../ui';

export function ApprovalsPage() {
  const pending = usePendingApprovals();
  const scripts = useScripts();
  const flows = useFlows();
  const [decided, setDecided] = useState<{ approval: Rec; decision: Decision }[]>([]);
  const onDecided = (approval: Rec) => (decision: Decision) => {
    setDecided([...decided, { approval, decision }]);
    approvalsChanged();
  };
  return (
    <>
      {decided.length > 0 && (
        <ul role="status" aria-label="Decisions">
          {decided.map(({ approval, decision }) => (
            <li>
              You {decision === 'approve' ? 'approved' : 'rejected'} "{approval.name}" of run <RunLink executionId={approval.executionId} />.
            </li>
          ))}
        </ul>
      )}
      <Loaded state={pending} label="your pending approvals">
        {(data) => {
          const approvals = ((data.approvals ?? []) as Rec[]).filter((item) => item.status === 'pending');
          if (approvals.length === 0) return <p class="empty">No run is waiting for your decision.</p>;
          return (
            <ul class="inbox" aria-label="Pending approvals">
              {approvals.map((approval) => (
                <li>
                  <section class="inbox-row" aria-label={`Approval ${approval.name} of run ${approval.executionId}`}>
                    <div class="inbox-what">
                      <strong>{approval.message || approval.name}</strong>
                      <small>
                        {approval.name} · run <RunLink executionId={approval.executionId} /> of{' '}
                        {approval.flowId ? (
                          <a href={`#/flows/${encodeURIComponent(approval.flowId)}`}>flow {nameOf(flows.data, approval.flowId)}</a>
                        ) : (
                          <a href={`#/scripts/${encodeURIComponent(approval.scriptId)}`}>script {nameOf(scripts.data, approval.scriptId)}</a>
                        )}{' '}
                        · asked <Time value={approval.requestedAt} /> · expires <Time value={approval.expiresAt} />
                      </small>
                    </div>
                    <DecisionForm compact label={`Decide ${approval.name}`} decide={decideWithKey(approval.approvalId)} onDecided={onDecided(approval)} />
                  </section>
                </li>
              ))}
            </ul>
          );
        }}
      </Loaded>
    </>
  );
}
