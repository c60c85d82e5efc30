// Approvals: the runs waiting for the signed-in user's decision, each with what it asks, the run and its script or flow,
// when it was requested and when it expires, and approve or reject with a comment.
import { useState } from 'preact/hooks';
import { ApprovalFacts, type Decision, DecisionForm, approvalsChanged, decideWithKey, usePendingApprovals } from '../approvals';
import { nameOf, useFlows, useScripts } from '../pickers';
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
          return approvals.map((approval) => (
            <section class="approval" aria-label={`Approval ${approval.name} of run ${approval.executionId}`}>
              <h2>{approval.name}</h2>
              <ApprovalFacts
                approval={approval}
                subject={
                  <>
                    run <RunLink executionId={approval.executionId} />
                    {approval.flowId ? (
                      <>
                        {' '}
                        of flow <a href={`#/flows/${encodeURIComponent(approval.flowId)}`}>{nameOf(flows.data, approval.flowId)}</a>
                      </>
                    ) : (
                      <> of script {nameOf(scripts.data, approval.scriptId)}</>
                    )}
                  </>
                }
              />
              <DecisionForm label={`Decide ${approval.name}`} decide={decideWithKey(approval.approvalId)} onDecided={onDecided(approval)} />
            </section>
          ));
        }}
      </Loaded>
    </>
  );
}
