// The page an approval's signed link opens (#/approve/<approvalId>?token=...), for approvers without the console: no
// key and no sign-in, the token in the link is the right to decide this one approval once. It shows what is asked,
// for which script or flow, when it was requested and when it expires, then approve or reject with a comment and the
// outcome. A used, expired or wrong link says so.
import { useState } from 'preact/hooks';
import { PlatformError } from '../../../clients/typescript/src/index';
import { ApprovalFacts, type Decision, DecisionForm } from '../approvals';
import { keylessApi, unwrap } from '../api';
import { ErrorMessage, Loaded, type Rec, useLoad } from '../ui';
import { when } from '../time';

const outcomes: Record<string, string> = {
  approved: 'approved',
  rejected: 'rejected',
  expired: 'expired: no decision can be made any more',
  cancelled: 'cancelled: no decision can be made any more',
};

/** Why a link does not open, in the approver's words rather than the API's code. */
function LinkRefused({ error }: { error: unknown }) {
  if (!(error instanceof PlatformError)) return <ErrorMessage error={error} />;
  const reason =
    error.code === 'CONFLICT'
      ? 'This link has already been used: the approval is decided.'
      : error.code === 'VALIDATION_ERROR'
        ? 'This link is incomplete: open it exactly as you received it.'
        : 'This link is not valid: it may be mistyped, already used or expired.';
  return (
    <p class="error" role="alert">
      {reason}
    </p>
  );
}

function Decided({ approval }: { approval: Rec }) {
  const outcome = outcomes[approval.status] ?? approval.status;
  return (
    <p class={`outcome outcome-${approval.status}`} role="status">
      This approval is {outcome}
      {approval.decidedBy ? ` by ${approval.decidedBy}` : ''}
      {approval.decidedAt ? ` at ${when(approval.decidedAt)}` : ''}.{approval.comment ? ` Comment: "${approval.comment}".` : ''}
      {approval.cancelReason ? ` Why: ${approval.cancelReason}.` : ''}
    </p>
  );
}

export function ApprovePage({ approvalId, token }: { approvalId: string; token: string }) {
  const client = keylessApi();
  const path = { approvalId };
  const approval = useLoad(
    (): Promise<Rec> => unwrap(client.GET('/api/sdk/v1/approvals/{approvalId}/signed', { params: { path, query: { token } } })),
    [approvalId, token],
  );
  const [decided, setDecided] = useState<Rec>();
  const decide = (decision: Decision, comment: string): Promise<Rec> =>
    unwrap(client.POST('/api/sdk/v1/approvals/{approvalId}/signed', { params: { path }, body: { token, decision, ...(comment && { comment }) } }));
  const current = decided ? { ...approval.data, ...decided } : approval.data;
  return (
    <main class="approve">
      <h1>{current && current.status !== 'pending' ? `Approval ${outcomes[current.status]?.split(':')[0] ?? current.status}` : 'Approval requested'}</h1>
      {approval.error !== undefined ? (
        <LinkRefused error={approval.error} />
      ) : (
        <Loaded state={approval} label="the approval">
          {() =>
            current && (
              <section aria-label={`Approval ${current.name}`}>
                <ApprovalFacts approval={current} subject={`script ${current.scriptName ?? current.scriptId}`} />
                {current.status === 'pending' ? (
                  <>
                    <p>
                      You decide as <strong>{approval.data?.approver}</strong>; the first decision of any approver settles it.
                    </p>
                    <DecisionForm label="Your decision" decide={decide} onDecided={(_decision, outcome) => setDecided(outcome as Rec)} />
                  </>
                ) : (
                  <Decided approval={current} />
                )}
              </section>
            )
          }
        </Loaded>
      )}
    </main>
  );
}
