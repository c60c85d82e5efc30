// Events: (1) the trigger pipeline's work per event over one event type with 10,000 subscriptions of 1,000 users,
// conditions using every operator: the indexed lookup (DynamoDB Local), enrichment and condition matching;
// (2) sustained POST /api/sdk/v1/events into a subscribed, deployed script, then a count proving that every
// accepted event ran the script exactly once.
import { performance } from 'node:perf_hooks';
import { type BenchFigure, type BarePlatform, assertAllOk, loadTest, percentile, startBarePlatform } from './support.js';
import { runDeliveryLoad } from './events-delivery.js';
import { subscriptionLoad } from './events-subscriptions.js';

export const name = 'events';
export const description =
  'dispatcher lookup + match over 10,000 subscriptions (every operator) of 1,000 users; sustained POST /events with every delivery counted';

const round3 = (value: number) => Math.round(value * 1000) / 1000;
const timed = (sortedMs: Float64Array) => ({ p50: round3(percentile(sortedMs, 50)), p99: round3(percentile(sortedMs, 99)) });

async function measureMatching(): Promise<BenchFigure[]> {
  const load = await subscriptionLoad({ users: 1000, perUser: 10 });
  const samples = 20_000;
  const lookup = new Float64Array(2_000);
  const matchOnly = new Float64Array(samples);
  const enrichAndMatch = new Float64Array(samples);
  let matched = 0;
  for (let index = 0; index < lookup.length; index++) {
    const started = performance.now();
    await load.lookup(index);
    lookup[index] = performance.now() - started;
  }
  for (let round = 0; round < 2; round++) {
    // Round 0 warms the JIT and compiles every subscription's conditions once; round 1 is measured.
    for (let index = 0; index < samples; index++) {
      const started = performance.now();
      const event = load.enrichedEvent(index);
      const enriched = performance.now();
      matched += load.match(index, event);
      const done = performance.now();
      matchOnly[index] = done - enriched;
      enrichAndMatch[index] = done - started;
    }
  }
  console.log(
    `  ${load.subscriptions} subscriptions over ${load.users} users; ${(matched / 2 / samples).toFixed(2)} of ${load.perUser} subscriptions matched per event`,
  );
  const match = timed(matchOnly.sort());
  const full = timed(enrichAndMatch.sort());
  const indexed = timed(lookup.sort());
  return [
    { name: `${name}.match_p50_ms`, value: match.p50, unit: 'ms', target: 2, better: 'lower' },
    { name: `${name}.match_p99_ms`, value: match.p99, unit: 'ms', target: 2, better: 'lower' },
    { name: `${name}.enrich_and_match_p99_ms`, value: full.p99, unit: 'ms', target: 2, better: 'lower' },
    { name: `${name}.index_lookup_p50_ms`, value: indexed.p50, unit: 'ms', target: 10, better: 'lower' },
    { name: `${name}.index_lookup_p99_ms`, value: indexed.p99, unit: 'ms', target: 10, better: 'lower' },
  ];
}

export async function run(): Promise<BenchFigure[]> {
  const platform: BarePlatform = await startBarePlatform();
  try {
    const matching = await measureMatching();
    const delivery = await runDeliveryLoad(platform, { loadTest, assertAllOk });
    return [...matching, ...delivery];
  } finally {
    await platform.stop();
  }
}
