// The chart of `npm run bench`, drawn with Vega-Lite: on the left the latency percentiles (p50, p99)
// of sim trades and of the no-op BullMQ round trip against the offered load, on the right each
// throughput as a share of its floor in the same run, with its goal as a tick, and the history
// axis's per-agent reads; every goal line and tick is bench/goals.ts's (as the report's table). Vega
// renders the SVG headless (no canvas), resvg rasterises it to PNG.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Resvg } from '@resvg/resvg-js';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { isMain } from '../shared/infra/process/is-main.js';
import { HISTORY, READ_SHARE_OF_BARE_HTTP, TRADE_P99, TRADE_SHARE_OF_NO_OP } from './goals.js';
import type { BenchResults } from './report.js';

const FONT = 'DejaVu Sans';

interface LatencyPoint {
  series: string;
  percentile: 'p50' | 'p99';
  offered: number;
  ms: number;
}

interface RatioBar {
  label: string;
  group: string;
  percent: number;
  goal: number;
}

function latencyPoints(b: BenchResults): LatencyPoint[] {
  return (b.trades?.curve ?? []).flatMap((c) =>
    (
      [
        ['sim trade', c.trade],
        ['no-op BullMQ round trip', c.noOp],
      ] as const
    ).flatMap(([series, row]) =>
      (['p50', 'p99'] as const).map((percentile) => ({
        series,
        percentile,
        offered: c.rate,
        // A log scale has no 0: sub-millisecond answers are drawn at 0.5 ms.
        ms: Math.max(0.5, row[percentile]),
      })),
    ),
  );
}

const TRADE_SERIES = ['sim trade', 'no-op BullMQ round trip'];
const RATIO_GROUPS = ['trades / no-op round trip', 'reads / bare HTTP'];
const LOG_TICKS = [0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000];

function ratioBars(b: BenchResults): RatioBar[] {
  const bars: RatioBar[] = (b.trades?.closed ?? []).map((c) => ({
    label: `trades / no-op, ${c.connections} conn.`,
    group: RATIO_GROUPS[0]!,
    percent: (c.trade.rps / c.noOp.rps) * 100,
    goal: TRADE_SHARE_OF_NO_OP.share * 100,
  }));
  const r = b.reads;
  for (const row of r?.closed ?? []) {
    const goal = READ_SHARE_OF_BARE_HTTP.find((g) => g.key === row.key);
    if (!goal) continue;
    bars.push({
      label: `${goal.label} / bare HTTP, ${r!.connections} conn.`,
      group: RATIO_GROUPS[1]!,
      percent: (row.rps / r!.bareHttp.rps) * 100,
      goal: goal.share * 100,
    });
  }
  return bars;
}

interface HistoryPoint {
  read: string;
  trades: string;
  percentile: 'p50' | 'p99';
  ms: number;
}

/**
 * The scaling part's history axis: each per-agent read's p50 and p99 by recorded trades. A read
 * whose every request failed has no latency (NaN) and is left out: one NaN made the whole log
 * scale's domain NaN and the panel drew no line at all.
 */
function historyPoints(b: BenchResults): HistoryPoint[] {
  return (b.scaling?.history ?? []).flatMap((h) =>
    h.reads.flatMap((r) =>
      (['p50', 'p99'] as const)
        .filter((percentile) => Number.isFinite(r[percentile]))
        .map((percentile) => ({
          read: r.what,
          trades: h.trades.toLocaleString('en-US'),
          percentile,
          ms: Math.max(0.5, r[percentile]),
        })),
    ),
  );
}

function historyPanel(b: BenchResults) {
  const points = historyPoints(b);
  const values = points.map((p) => p.ms);
  const domain = [0.5, Math.max(50, ...values) * 1.5];
  return {
    title: {
      text: 'Per-agent reads vs recorded trades',
      subtitle: [
        `paced at ${b.scaling?.readRate ?? HISTORY.rate}/s; solid p50, dashed p99; log scale`,
        `red dotted line: the p99 goal (${HISTORY.p99Ms} ms)`,
      ],
    },
    width: 300,
    height: 300,
    layer: [
      {
        data: { values: points },
        mark: { type: 'line' as const, point: { size: 40, filled: true }, strokeWidth: 2 },
        encoding: {
          x: { field: 'trades', type: 'ordinal' as const, sort: null, title: 'recorded trades' },
          y: {
            field: 'ms',
            type: 'quantitative' as const,
            scale: { type: 'log' as const, domain, nice: false },
            axis: { values: LOG_TICKS.filter((v) => v >= domain[0]! && v <= domain[1]!) },
            title: 'latency (ms)',
          },
          color: { field: 'read', type: 'nominal' as const, title: null },
          strokeDash: {
            field: 'percentile',
            type: 'nominal' as const,
            title: null,
            legend: null,
            scale: {
              domain: ['p50', 'p99'],
              range: [
                [1, 0],
                [6, 4],
              ],
            },
          },
        },
      },
      {
        data: { values: [{ ms: HISTORY.p99Ms }] },
        mark: { type: 'rule' as const, color: '#d62728', strokeDash: [2, 3] },
        encoding: { y: { field: 'ms', type: 'quantitative' as const } },
      },
    ],
  };
}

export function chartSpec(b: BenchResults, title: string): TopLevelSpec {
  const latency = latencyPoints(b);
  const values = latency.map((p) => p.ms);
  const msDomain = [Math.max(0.5, Math.min(10, ...values) / 1.5), Math.max(200, ...values) * 1.5];
  const rates = [...new Set(latency.map((p) => p.offered))];
  const rateDomain = rates.length ? [Math.min(...rates) / 1.25, Math.max(...rates) * 1.25] : [10, 1000];
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: title, anchor: 'start', fontSize: 15 },
    background: 'white',
    padding: 16,
    spacing: 40,
    config: {
      font: FONT,
      view: { stroke: '#ddd' },
      axis: { labelFontSize: 11, titleFontSize: 12 },
      legend: {
        labelFontSize: 11,
        titleFontSize: 11,
        labelLimit: 400,
        orient: 'bottom',
        direction: 'horizontal',
      },
      title: { subtitleColor: '#555' },
    },
    hconcat: [
      {
        title: {
          text: 'Latency vs offered load',
          subtitle: [
            'open loop, latency from each scheduled start, ≤ 64 in flight; log scales',
            `red dotted line and diamond: the trade p99 goal at ${TRADE_P99.rate}/s (${TRADE_P99.ms} ms)`,
          ],
        },
        width: 440,
        height: 300,
        layer: [
          {
            data: { values: latency },
            mark: { type: 'line', point: { size: 45, filled: true }, strokeWidth: 2 },
            encoding: {
              x: {
                field: 'offered',
                type: 'quantitative',
                scale: { type: 'log', domain: rateDomain, nice: false },
                axis: { values: rates },
                title: 'offered load (requests/s)',
              },
              y: {
                field: 'ms',
                type: 'quantitative',
                scale: { type: 'log', domain: msDomain, nice: false },
                axis: { values: LOG_TICKS.filter((v) => v >= msDomain[0]! && v <= msDomain[1]!) },
                title: 'latency (ms)',
              },
              color: {
                field: 'series',
                type: 'nominal',
                title: null,
                scale: { domain: TRADE_SERIES, range: ['#1f77b4', '#7f7f7f'] },
              },
              strokeDash: {
                field: 'percentile',
                type: 'nominal',
                title: null,
                scale: {
                  domain: ['p50', 'p99'],
                  range: [
                    [1, 0],
                    [6, 4],
                  ],
                },
                legend: {
                  symbolType: 'stroke',
                  symbolStrokeWidth: 2,
                  symbolSize: 400,
                  // The points make vega-lite fill the symbols and hide their stroke: show the dash.
                  encoding: {
                    symbols: { stroke: { value: '#333' }, fill: { value: 'transparent' } },
                  },
                },
              },
            },
          },
          {
            data: { values: [{ ms: TRADE_P99.ms }] },
            mark: { type: 'rule', color: '#d62728', strokeDash: [2, 3] },
            encoding: { y: { field: 'ms', type: 'quantitative' } },
          },
          // The load the goal is set at, on its line.
          {
            data: { values: [{ offered: TRADE_P99.rate, ms: TRADE_P99.ms }] },
            mark: { type: 'point', shape: 'diamond', color: '#d62728', filled: true, size: 90 },
            encoding: {
              x: { field: 'offered', type: 'quantitative' },
              y: { field: 'ms', type: 'quantitative' },
            },
          },
        ],
      },
      {
        title: {
          text: 'Throughput as a share of its floor',
          subtitle: 'floors measured in the same run; black tick = goal',
        },
        width: 280,
        height: 300,
        data: { values: ratioBars(b) },
        encoding: {
          y: { field: 'label', type: 'nominal', sort: null, title: null, axis: { labelLimit: 400 } },
        },
        layer: [
          {
            mark: { type: 'bar', height: { band: 0.7 } },
            encoding: {
              x: {
                field: 'percent',
                type: 'quantitative',
                title: '% of floor',
                scale: { domain: [0, 100], clamp: true },
              },
              color: {
                field: 'group',
                type: 'nominal',
                title: null,
                legend: null,
                scale: { domain: RATIO_GROUPS, range: ['#1f77b4', '#2ca02c'] },
              },
            },
          },
          {
            mark: { type: 'tick', color: 'black', thickness: 2, size: 28 },
            encoding: { x: { field: 'goal', type: 'quantitative' } },
          },
          {
            mark: { type: 'text', align: 'left', dx: 4, fontSize: 11 },
            encoding: {
              x: { field: 'percent', type: 'quantitative' },
              text: { field: 'percent', type: 'quantitative', format: '.1f' },
            },
          },
        ],
      },
      ...(b.scaling?.history?.length ? [historyPanel(b)] : []),
    ],
    resolve: { scale: { color: 'independent' }, legend: { color: 'independent' } },
  };
}

interface TextItem {
  text?: unknown;
  fontSize?: number;
  fontWeight?: string | number;
}

/**
 * Vega without a canvas estimates a text's width at 0.8 em a character, far wider than DejaVu Sans
 * (which pushes the panels apart); this is closer: that font's usual advances per kind of character.
 */
function dejaVuWidth(item: TextItem, text?: unknown): number {
  const value = text ?? item.text;
  const lines = Array.isArray(value) ? value.map(String) : [String(value ?? '')];
  const size = item.fontSize ?? 11;
  const bold = item.fontWeight === 'bold' || Number(item.fontWeight) >= 600 ? 1.1 : 1;
  const em = (ch: string) =>
    /[0-9]/.test(ch) ? 0.64 : /[A-Z]/.test(ch) ? 0.7 : /[a-z]/.test(ch) ? 0.58 : ch === ' ' ? 0.32 : 0.45;
  return Math.max(...lines.map((l) => [...l].reduce((w, ch) => w + em(ch), 0) * size * bold));
}

/** Renders the chart to `pngPath` (2× scale for a sharp picture in the docs). */
export async function renderChart(b: BenchResults, title: string, pngPath: string): Promise<void> {
  // textMetrics is exported at run time (vega-scenegraph) but not in vega's type declarations.
  (vega as unknown as { textMetrics: { width: typeof dejaVuWidth } }).textMetrics.width = dejaVuWidth;
  // Errors only: merging the line's and the points' legends warns about the symbol encoding above.
  const { spec } = compile(chartSpec(b, title), { logger: vega.logger(vega.Error) });
  const view = new vega.View(vega.parse(spec), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  const png = new Resvg(svg, {
    fitTo: { mode: 'zoom', value: 2 },
    background: 'white',
    font: { loadSystemFonts: true, defaultFontFamily: FONT, sansSerifFamily: FONT },
  })
    .render()
    .asPng();
  mkdirSync(dirname(pngPath), { recursive: true });
  writeFileSync(pngPath, png);
}

// `node --import tsx bench/chart.ts [results.json]`: redraws docs/bench/bench.png from the figures
// the last `npm run bench` saved (docs/bench/results.json), without running the bench again.
if (isMain(import.meta.url)) {
  const dir = join(resolve(import.meta.dirname, '..'), 'docs', 'bench');
  const saved = JSON.parse(readFileSync(process.argv[2] ?? join(dir, 'results.json'), 'utf8')) as {
    title: string;
    results: BenchResults;
  };
  await renderChart(saved.results, saved.title, join(dir, 'bench.png'));
  console.log(`chart: ${join(dir, 'bench.png')}`);
}
