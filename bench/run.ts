// `npm run bench [-- <name prefix>...]`: runs the registered benches in sequence, prints a table and writes
// bench/results.json. A missed target is reported, not failed; only a crashed bench exits non-zero.
import './quiet-logs.js';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { benches } from './index.js';
import { type Bench, type BenchFigure, benchRateLimitPerMinute } from './support.js';

const resultsPath = fileURLToPath(new URL('./results.json', import.meta.url));

/** Figures belong to the bench whose name prefixes theirs; that is how a partial run replaces only its own entries. */
const ownedBy = (bench: Bench, figureName: string) => figureName.startsWith(`${bench.name}.`);

const met = (figure: BenchFigure) => (figure.better === 'higher' ? figure.value >= figure.target : figure.value <= figure.target);

const formatNumber = (value: number) => {
  const magnitude = Math.abs(value);
  return value.toFixed(magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : 2);
};

function checkFigures(bench: Bench, figures: BenchFigure[]) {
  for (const figure of figures) {
    if (!ownedBy(bench, figure.name)) throw new Error(`figure ${figure.name} must start with "${bench.name}."`);
    if (!Number.isFinite(figure.value)) throw new Error(`figure ${figure.name} has no finite value: ${figure.value}`);
  }
}

function printTable(figures: BenchFigure[]) {
  if (figures.length === 0) return;
  const header = ['name', 'value', 'unit', 'target', 'better', 'baseline', 'ratio', 'verdict'];
  const rows = figures.map((figure) => [
    figure.name,
    formatNumber(figure.value),
    figure.unit,
    formatNumber(figure.target),
    figure.better,
    figure.baseline ? `${figure.baseline.name} = ${formatNumber(figure.baseline.value)}` : '',
    figure.baseline ? `${formatNumber(figure.value / figure.baseline.value)}x` : '',
    met(figure) ? 'PASS' : 'MISS',
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  console.log(['', line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n'));
  console.log(
    `\nNote: the per-key rate limit is raised to ${benchRateLimitPerMinute} requests/minute (RATE_LIMIT_PER_MINUTE) so benches measure throughput, not the limiter.`,
  );
}

/** Entries in registry order: fresh ones for benches that ran, the previous ones for the rest (and for crashed benches). */
function mergeResults(fresh: Map<string, BenchFigure[]>): BenchFigure[] {
  const previous = existsSync(resultsPath) ? (JSON.parse(readFileSync(resultsPath, 'utf8')) as BenchFigure[]) : [];
  return benches
    .flatMap((bench) => fresh.get(bench.name) ?? previous.filter((figure) => ownedBy(bench, figure.name)))
    .map(({ name, value, unit, target, better, baseline }) => ({
      name,
      value,
      unit,
      target,
      better,
      ...(baseline && { baseline: { name: baseline.name, value: baseline.value } }),
    }));
}

async function main(): Promise<number> {
  const prefixes = process.argv.slice(2);
  const selected = prefixes.length ? benches.filter((bench) => prefixes.some((prefix) => bench.name.startsWith(prefix))) : benches;
  if (selected.length === 0) {
    console.error(`No bench matches ${prefixes.join(', ')}. Known benches: ${benches.map((bench) => bench.name).join(', ')}`);
    return 2;
  }

  const fresh = new Map<string, BenchFigure[]>();
  let crashed = false;
  for (const bench of selected) {
    console.log(`> ${bench.name}: ${bench.description}`);
    const started = Date.now();
    try {
      const figures = await bench.run();
      checkFigures(bench, figures);
      fresh.set(bench.name, figures);
      console.log(`  done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    } catch (error) {
      crashed = true;
      console.error(`  ${bench.name} crashed:`, error);
    }
  }

  printTable([...fresh.values()].flat());
  writeFileSync(resultsPath, `${JSON.stringify(mergeResults(fresh), null, 2)}\n`);
  console.log(`Wrote ${resultsPath}`);
  return crashed ? 1 : 0;
}

// Exit explicitly: SDK sockets and timers of a stopped platform must not keep the process alive.
process.exit(await main());
