// Approvals shared by the approvals page, a run's page and the signed-link page: the caller's pending approvals (the
// navigation shows their count) and one approval's details with approve and reject and a comment.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, unwrap } from './api';
import { Field, type Rec, useAction, useLoad } from './ui';
import { Time } from './time';

export type Decision = 'approve' | 'reject';

const changed = 'platform:approvals-changed';

/** Tells every view that lists pending approvals (the navigation's count among them) to load them again. */
export const approvalsChanged = () => dispatchEvent(new Event(changed));

/** The signed-in user's pending approvals, loaded again after any decision made in this tab. */
export function usePendingApprovals(deps: unknown[] = []) {
  const state = useLoad((): Promise<Rec> => unwrap(api().GET('/api/sdk/v1/approvals', { params: { query: { limit: 100 } } })), deps);
  useEffect(() => {
    addEventListener(changed, state.reload);
    return () => removeEventListener(changed, state.reload);
  }, [state.reload]);
  return state;
}

/** What is asked, of whom, and until when. */
export function ApprovalFacts({ approval, subject }: { approval: Rec; subject?: ComponentChildren }) {
  return (
    <>
      <p class="message">{approval.message || `Approval "${approval.name}" requested.`}</p>
      <dl>
        <dt>Step</dt>
        <dd>{approval.name}</dd>
        {subject && (
          <>
            <dt>For</dt>
            <dd>{subject}</dd>
          </>
        )}
        <dt>Requested</dt>
        <dd>
          <Time value={approval.requestedAt} />
        </dd>
        <dt>Expires</dt>
        <dd>
          <Time value={approval.expiresAt} />
        </dd>
        {(approval.approvers ?? []).length > 0 && (
          <>
            <dt>Approvers</dt>
            <dd>{(approval.approvers as Rec[]).map((approver) => approver.username ?? approver.userId).join(', ')}</dd>
          </>
        )}
      </dl>
    </>
  );
}

/** Approve or reject with an optional comment; `decide` is the key's route or the signed link's. `compact`: one line. */
export function DecisionForm({
  label,
  compact,
  decide,
  onDecided,
}: {
  label: string;
  compact?: boolean;
  decide(decision: Decision, comment: string): Promise<unknown>;
  onDecided(decision: Decision, outcome: unknown): void;
}) {
  const [comment, setComment] = useState('');
  const { run, busy, status } = useAction();
  const submit = async (decision: Decision) => {
    const outcome = await run(decision === 'approve' ? 'Approving' : 'Rejecting', () => decide(decision, comment.trim()));
    if (outcome !== undefined) onDecided(decision, outcome);
  };
  return (
    <form
      class={compact ? 'decision compact' : 'decision'}
      aria-label={label}
      onSubmit={(event) => {
        event.preventDefault();
        void submit('approve');
      }}
    >
      {compact ? (
        <input
          name="comment"
          aria-label="Comment"
          placeholder="Comment (optional)"
          maxLength={2000}
          value={comment}
          onInput={(event) => setComment(event.currentTarget.value)}
        />
      ) : (
        <Field label="Comment" hint="Optional; the run receives it with the decision.">
          <textarea name="comment" maxLength={2000} value={comment} onInput={(event) => setComment(event.currentTarget.value)} />
        </Field>
      )}
      <div class="row">
        <button type="submit" disabled={Boolean(busy)}>
          Approve
        </button>
        <button type="button" class="danger" disabled={Boolean(busy)} onClick={() => void submit('reject')}>
          Reject
        </button>
      </div>
      {status}
    </form>
  );
}

/** The signed-in approver's decision on one approval, through the API key. */
export const decideWithKey = (approvalId: string) => (decision: Decision, comment: string) =>
  unwrap(api().POST('/api/sdk/v1/approvals/{approvalId}', { params: { path: { approvalId } }, body: { decision, ...(comment && { comment }) } }));
