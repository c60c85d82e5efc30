// Usage and revenue: calls, runs, cost and revenue per day (UTC) over the last 14 days, as uPlot charts with the
// numbers behind them in a table; totals of the caller's resources beside.
import { useEffect, useRef } from 'preact/hooks';
import type uPlot from 'uplot';
import { api, unwrap } from '../api';
import { Loaded, type Rec, Table, rating, useLoad } from '../ui';
import { money } from '../money';

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
  for (const payment of payments) {
    const row = at(payment.timestamp);
    if (row) row.revenue += payment.amountUsd ?? 0;
  }
  return { table, metrics };
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

export function UsagePage() {
  const usage = useLoad(loadUsage, []);
  return (
    <Loaded state={usage} label="usage">
      {({ table, metrics }) => (
        <>
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
              title="Cost and revenue per day (USD)"
              table={table}
              series={[
                ['cost', 'Cost'],
                ['revenue', 'Revenue'],
              ]}
              digits={4}
            />
          </div>
          <Table
            caption="Per day (UTC)"
            rows={[...table].reverse()}
            columns={[
              ['Day', (row) => row.day],
              ['Resource calls', (row) => row.calls],
              ['Runs', (row) => row.runs],
              ['Cost', (row) => money(row.cost)],
              ['Revenue', (row) => money(row.revenue)],
            ]}
          />
          <Table
            caption="Your resources"
            rows={metrics}
            empty="You have not created resources."
            columns={[
              ['Resource', ({ resource }) => resource.name],
              ['Users', ({ metrics: m }) => m.totalUsers],
              ['Calls', ({ metrics: m }) => m.totalCalls],
              ['Revenue', ({ metrics: m }) => money(m.totalRevenue)],
              ['Rating', ({ metrics: m }) => rating(m.rating, m.reviewCount)],
            ]}
          />
        </>
      )}
    </Loaded>
  );
}
