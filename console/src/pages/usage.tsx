// Usage and revenue: calls, runs, cost and net revenue (the owner's 90%) per day (UTC) over the last 14 days, as uPlot
// charts with the numbers behind them in a table; net revenue per resource, and the payments received.
import { useEffect, useRef } from 'preact/hooks';
import type uPlot from 'uplot';
import { api, unwrap } from '../api';
import { fromAtomic, money, ownerShare } from '../money';
import { Time } from '../time';
import { Loaded, type Rec, Table, rating, text, useLoad } from '../ui';

const days = 14;
const dayOf = (value: string | number) => new Date(value).toISOString().slice(0, 10);

interface Day {
  day: string;
  calls: number;
  runs: number;
  cost: number;
  revenue: number;
}

/** Every page of a list answer, up to `cap` items. */
async function all(page: (offset: number) => Promise<Rec>, key: string, cap = 1000): Promise<Rec[]> {
  const items: Rec[] = [];
  for (let offset = 0; offset < cap; ) {
    const data = await page(offset);
    items.push(...(data[key] ?? []));
    offset += 100;
    if ((data[key] ?? []).length < 100 || offset >= (data.total ?? 0)) break;
  }
  return items;
}

async function loadUsage() {
  const since = new Date(Date.now() - (days - 1) * 86_400_000).toISOString().slice(0, 10);
  const [runs, installations, payments, resources] = await Promise.all([
    all((offset) => unwrap(api().GET('/api/sdk/v1/executions', { params: { query: { startDate: since, limit: 100, offset } as never } })), 'executions'),
    all((offset) => unwrap(api().GET('/api/sdk/v1/resources/installations', { params: { query: { limit: 100, offset } as never } })), 'installations'),
    all((offset) => unwrap(api().GET('/api/sdk/v1/payments', { params: { query: { limit: 100, offset } as never } })), 'payments'),
    all((offset) => unwrap(api().GET('/api/sdk/v1/resources', { params: { query: { limit: 100, offset } as never } })), 'resources'),
  ]);
  const usages = await Promise.all(
    installations.map(
      (item) =>
        unwrap(
          api().GET('/api/sdk/v1/resources/installations/{installationId}/usage', { params: { path: { installationId: item.installationId } } }),
        ) as Promise<Rec>,
    ),
  );
  const metrics = await Promise.all(
    resources.map(async (resource) => ({
      resource,
      metrics: (await unwrap(api().GET('/api/sdk/v1/resources/{resourceId}/metrics', { params: { path: { resourceId: resource.id } } }))) as Rec,
    })),
  );
  const table: Day[] = Array.from({ length: days }, (_, index) => ({
    day: dayOf(Date.now() - (days - 1 - index) * 86_400_000),
    calls: 0,
    runs: 0,
    cost: 0,
    revenue: 0,
  }));
  const at = (value: string | number) => table.find((row) => row.day === dayOf(value));
  for (const run of runs) {
    const row = at(run.startedAt);
    if (row) {
      row.runs += 1;
      row.cost += run.cost ?? 0;
    }
  }
  for (const call of usages.flatMap((usage) => (usage.recentCalls ?? []) as Rec[])) {
    const row = at(call.timestamp);
    if (row) {
      row.calls += 1;
      row.cost += call.cost ?? 0;
    }
  }
  const received = payments.filter((payment) => payment.settlementStatus !== 'failed');
  for (const payment of received) {
    const row = at(payment.timestamp);
    if (row) row.revenue += fromAtomic(payment.agentOwnerAmount) ?? 0;
  }
  const perResource = metrics.map(({ resource, metrics: totals }) => ({
    resource,
    totals,
    net: received.filter((payment) => payment.resourceId === resource.id).reduce((sum, payment) => sum + (fromAtomic(payment.agentOwnerAmount) ?? 0), 0),
  }));
  return { table, perResource, payments };
}

function Chart({ title, table, series, digits = 0 }: { title: string; table: Day[]; series: [keyof Day, string][]; digits?: number }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const data: uPlot.AlignedData = [
      table.map((row) => Date.parse(`${row.day}T00:00:00Z`) / 1000),
      ...series.map(([key]) => table.map((row) => Number(row[key]))),
    ];
    const colors = ['#2457c5', '#d9480f', '#2b8a3e', '#862e9c'];
    let plot: uPlot | undefined;
    let gone = false;
    // uPlot loads with the first chart: a chunk of its own.
    void import('uplot').then(({ default: UPlot }) => {
      if (gone) return;
      plot = new UPlot(
        {
          title,
          width: Math.min(560, host.current!.clientWidth || 560),
          height: 240,
          series: [{}, ...series.map(([, label], index) => ({ label, stroke: colors[index], width: 2, points: { show: true } }))],
          // The legend names the series; the numbers are in the table (a live legend reads "--" off the cursor).
          legend: { live: false },
          axes: [{}, { size: 70, values: (_, ticks) => ticks.map((tick) => tick.toFixed(digits)) }],
        },
        data,
        host.current!,
      );
    });
    return () => {
      gone = true;
      plot?.destroy();
    };
  }, [table]);
  return (
    <figure class="chart" aria-label={`${title} chart; the numbers are in the table below`}>
      <div ref={host} />
    </figure>
  );
}

const share = `${Math.round(ownerShare * 100)}%`;
const shortHash = (hash: string) => `${hash.slice(0, 6)}…${hash.slice(-4)}`;

export function UsagePage() {
  const usage = useLoad(loadUsage, []);
  return (
    <Loaded state={usage} label="usage">
      {({ table, perResource, payments }) => {
        const active = table.filter((row) => row.calls || row.runs || row.cost || row.revenue);
        return (
          <>
            <p>Revenue is net: you receive {share} of each payment, the platform keeps the rest.</p>
            <div class="grid">
              <Chart
                title="Calls and runs per day"
                table={table}
                series={[
                  ['calls', 'Resource calls'],
                  ['runs', 'Runs'],
                ]}
              />
              <Chart
                title="Cost and net revenue per day (USDC)"
                table={table}
                series={[
                  ['cost', 'Cost'],
                  ['revenue', 'Net revenue'],
                ]}
                digits={4}
              />
            </div>
            <Table
              caption="Per day (UTC), days with activity"
              rows={[...active].reverse()}
              empty="No activity in the last 14 days."
              columns={[
                ['Day', (row) => row.day],
                ['Resource calls', (row) => row.calls],
                ['Runs', (row) => row.runs],
                ['Cost', (row) => money(row.cost)],
                ['Net revenue', (row) => money(row.revenue)],
              ]}
            />
            <Table
              caption="Your resources"
              rows={perResource}
              empty="You have not created resources."
              columns={[
                ['Resource', ({ resource }) => resource.name],
                ['Users', ({ totals }) => totals.totalUsers],
                ['Calls', ({ totals }) => totals.totalCalls],
                ['Net revenue', ({ net }) => money(net)],
                ['Rating', ({ totals }) => rating(totals.rating, totals.reviewCount)],
              ]}
            />
            <Table
              caption="Payments received, newest first"
              rows={payments}
              empty="No payment yet."
              columns={[
                ['Transaction', (payment) => <code title={payment.txHash}>{shortHash(payment.txHash)}</code>],
                ['When', (payment) => <Time value={payment.timestamp} />],
                ['Resource', (payment) => perResource.find(({ resource }) => resource.id === payment.resourceId)?.resource.name ?? text(payment.resourceId)],
                ['Payer', (payment) => <code title={payment.payer}>{shortHash(payment.payer)}</code>],
                ['Gross', (payment) => money(fromAtomic(payment.totalAmount))],
                [`Your ${share}`, (payment) => money(fromAtomic(payment.agentOwnerAmount))],
                ['Settlement', (payment) => <span class={`badge settlement-${payment.settlementStatus}`}>{payment.settlementStatus}</span>],
              ]}
            />
          </>
        );
      }}
    </Loaded>
  );
}
