// Home: the day at a glance. Today's runs by status, the latest failures with their reason, the approvals waiting
// for the user, today's spend and net revenue, and quick links to the daily tasks.
import { usePendingApprovals } from '../approvals';
import { api, unwrap } from '../api';
import { fromAtomic, money } from '../money';
import { nameOf, useFlows, useScripts } from '../pickers';
import { Time } from '../time';
import { Loaded, type Rec, RunLink, useLoad } from '../ui';

const shownStatuses = ['completed', 'failed', 'running', 'waiting'] as const;
const today = () => new Date().toISOString().slice(0, 10);
const isToday = (value: unknown) => typeof value === 'string' && value.startsWith(today());

const runsToday = (query: Rec): Promise<Rec> =>
  unwrap(api().GET('/api/sdk/v1/executions', { params: { query: { startDate: today(), topLevel: 'true', ...query } as never } }));

async function loadDay() {
  const [all, failures, payments, ...counts] = await Promise.all([
    runsToday({ limit: 100 }),
    runsToday({ status: 'failed', limit: 5 }),
    unwrap(api().GET('/api/sdk/v1/payments', { params: { query: { limit: 100 } as never } })) as Promise<Rec>,
    ...shownStatuses.map((status) => runsToday({ status, limit: 1 })),
  ]);
  const paidToday = ((payments.payments ?? []) as Rec[]).filter((payment) => isToday(payment.timestamp) && payment.settlementStatus !== 'failed');
  return {
    total: all.total as number,
    byStatus: shownStatuses.map((status, index) => [status, counts[index]!.total as number] as const),
    failures: (failures.executions ?? []) as Rec[],
    spend: ((all.executions ?? []) as Rec[]).reduce((sum, run) => sum + (run.cost ?? 0), 0),
    revenue: paidToday.reduce((sum, payment) => sum + (fromAtomic(payment.agentOwnerAmount) ?? 0), 0),
    paid: paidToday.length,
  };
}

export function HomePage() {
  const day = useLoad(loadDay, []);
  const pending = usePendingApprovals();
  const scripts = useScripts();
  const flows = useFlows();
  const approvals = ((pending.data?.approvals ?? []) as Rec[]).filter((item) => item.status === 'pending');
  return (
    <>
      <nav class="quick" aria-label="Quick links">
        <a href="#/scripts/new">New script</a>
        <a href="#/flows">New flow</a>
        <a href="#/runs">All runs</a>
        <a href="#/usage">Revenue</a>
        <a href="#/marketplace">Marketplace</a>
      </nav>
      <Loaded state={day} label="today">
        {(data) => (
          <div class="tiles">
            <section aria-label="Runs today">
              <h2>Runs today</h2>
              <p class="big">{data.total}</p>
              <ul class="statuses">
                {data.byStatus.map(([status, count]) => (
                  <li>
                    <a href={`#/runs?status=${status}`} class={`badge status-${status}`}>
                      {count} {status}
                    </a>
                  </li>
                ))}
              </ul>
            </section>
            <section aria-label="Money today">
              <h2>Today</h2>
              <dl>
                <dt>Spend</dt>
                <dd>{money(data.spend)}</dd>
                <dt>Revenue (net)</dt>
                <dd>
                  {money(data.revenue)} from {data.paid} payment{data.paid === 1 ? '' : 's'}
                </dd>
              </dl>
            </section>
            <section aria-label="Recent failures" class="wide">
              <h2>Recent failures</h2>
              {data.failures.length === 0 ? (
                <p class="empty">No run failed today.</p>
              ) : (
                <ul class="failures">
                  {data.failures.map((run) => (
                    <li>
                      <RunLink executionId={run.executionId} /> ·{' '}
                      {run.kind === 'flow' ? `flow ${nameOf(flows.data, run.flowId)}` : `script ${nameOf(scripts.data, run.scriptId)}`} ·{' '}
                      <Time value={run.startedAt} />
                      <p class="run-reason">{run.error ? `${run.error.code}: ${run.error.message}` : 'failed'}</p>
                    </li>
                  ))}
                </ul>
              )}
            </section>
          </div>
        )}
      </Loaded>
      <section aria-label="Waiting for you">
        <h2>Waiting for your decision</h2>
        <Loaded state={pending} label="your approvals">
          {() =>
            approvals.length === 0 ? (
              <p class="empty">No approval is waiting for you.</p>
            ) : (
              <p>
                <a href="#/approvals">
                  {approvals.length} approval{approvals.length === 1 ? '' : 's'} waiting
                </a>
                :{' '}
                {approvals
                  .slice(0, 3)
                  .map((approval) => approval.message || approval.name)
                  .join(' · ')}
              </p>
            )
          }
        </Loaded>
      </section>
    </>
  );
}
