// `npm run bench`: every part in one run, against floors measured in the same run: the database
// commands per sim buy, the trade bench (floors, closed loop, latency curve), the read bench, the
// scaling rows, the Reactor row and the cold-start check. Prints every table, writes them into the generated section
// of docs/benchmarks.md and draws docs/bench/bench.png. `BENCH_QUICK=1` is the CI smoke version
// (a few seconds per row, 1k/10k markets, 5 s idle). A part that fails is reported and the others
// still run; the exit code is then 1.
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { renderChart } from './chart.js';
import { coldStartConfig, QUICK, reactorConfig, readConfig, scalingConfig, tradeConfig } from './config.js';
import { runColdStart } from './cold-start.js';
import { countCommandsPerBuy } from './command-count.js';
import { runReactorBench } from './reactor.bench.js';
import { runReadBench } from './reads.bench.js';
import { fullReport, writeSection, type BenchResults } from './report.js';
import { runScaling } from './scaling.js';
import { runTradeBench } from './trades.bench.js';

const root = resolve(import.meta.dirname, '..');
const DOC = join(root, 'docs', 'benchmarks.md');
const CHART = join(root, 'docs', 'bench', 'bench.png');
/** The raw figures of the run: `node --import tsx bench/chart.ts` redraws the chart from them. */
const RESULTS = join(root, 'docs', 'bench', 'results.json');

const startedAt = new Date();
const results: BenchResults = { failures: [] };

async function part<K extends Exclude<keyof BenchResults, 'failures'>>(
  key: K,
  name: string,
  run: () => Promise<NonNullable<BenchResults[K]>>,
): Promise<void> {
  const t0 = performance.now();
  console.log(`\n== ${name}`);
  try {
    results[key] = await run();
  } catch (err) {
    const error = err instanceof Error ? err.message.split('\n')[0]! : String(err);
    console.error(`${name} failed:`, err);
    results.failures.push({ part: name, error });
  }
  console.log(`== ${name}: ${((performance.now() - t0) / 1000).toFixed(0)} s`);
}

console.log(
  `npm run bench${QUICK ? ' (BENCH_QUICK: smoke run)' : ''}: trades ${tradeConfig.seconds} s per row at ${tradeConfig.rates.join(', ')}/s; ` +
    `reads on ${readConfig.markets} markets; scaling to ${scalingConfig.marketSteps.at(-1)} markets; ` +
    `reactor ${reactorConfig.agents} agents at ${reactorConfig.fillRate} fills/s for ${reactorConfig.seconds} s; idle ${coldStartConfig.idleSeconds} s`,
);
await part('commands', 'database commands per sim buy', () => countCommandsPerBuy());
await part('trades', 'trade bench', () => runTradeBench());
await part('reads', 'read bench', () => runReadBench());
await part('scaling', 'scaling rows', () => runScaling());
await part('reactor', 'reactor', () => runReactorBench());
await part('coldStart', 'cold start', () => runColdStart());

const minutes = (Date.now() - startedAt.getTime()) / 60_000;
const date = startedAt.toISOString().slice(0, 10);
const machine = `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
const header = [
  `## Latest \`npm run bench\` (generated ${date})`,
  '',
  QUICK
    ? `**Quick smoke run** (\`BENCH_QUICK=1\`: ${tradeConfig.seconds} s per row, small catalogues, ${coldStartConfig.idleSeconds} s idle): it shows the harness works, its figures are not the record.`
    : `Full run: \`npm run bench\`.`,
  `Machine: ${machine}; took ${minutes.toFixed(1)} min. Service mode: \`NODE_ENV=${process.env.BENCH_NODE_ENV || 'production'}\`.`,
  'This section is written by bench/run-all.ts; edit the prose above it, not here.',
].join('\n');
const chartTitle = `npm run bench, ${date}${QUICK ? ' (quick smoke run)' : ''}: ${machine}`;
try {
  await renderChart(results, chartTitle, CHART);
  writeFileSync(RESULTS, `${JSON.stringify({ title: chartTitle, results }, null, 2)}\n`);
  console.log(`\nchart: ${CHART}`);
} catch (err) {
  console.error('the chart could not be drawn:', err);
  results.failures.push({ part: 'chart', error: err instanceof Error ? err.message : String(err) });
}
const report = fullReport(results, header, 'bench/bench.png');
console.log(`\n${report}\n`);
writeSection(DOC, report);
console.log(`written: ${DOC}`);
process.exit(results.failures.length ? 1 : 0);
