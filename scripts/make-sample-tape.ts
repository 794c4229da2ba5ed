// `node --import tsx scripts/make-sample-tape.ts --out <dir> [--end YYYY-MM-DD] [--days 3]`: writes a
// small, deterministic backtest tape (markets.parquet + quant.parquet, in the schema of issue 25 and of
// the official client's DuckDB reader) for `npm run tape:import` demos and tests.
//
// Six markets with prints every 20 minutes over the `days` days before `end` (end excluded; default:
// today, UTC), each YES price swinging around 0.5 on its own period so that any one-day window holds
// prints below 0.4 and above 0.6:
//   - four open markets (end date 30 days after `end`),
//   - one market that closed at noon of the last day and resolved YES (`['1', '0']`),
//   - one market below the client's default volume floor (600 < 1000), left out of a default slice.
// The same arguments give the same bytes of data (no clock, no randomness but `end`'s default).
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { sqlString, withDuckDb } from '../shared/infra/duckdb.js';
import { columnsLiteral, MARKET_COLUMNS, QUANT_COLUMNS } from '../shared/domains/tapes/tape-columns.js';

const DAY = 86_400;
const STEP_SECONDS = 20 * 60;

export interface SampleMarketSpec {
  id: string;
  slug: string;
  question: string;
  volume: number;
  /** Period of the YES price's swing, in hours, and its phase (fraction of a period). */
  periodHours: number;
  phase: number;
  /** Closed at noon of the window's last day with this YES outcome; open when absent. */
  resolvesYes?: boolean;
}

export const SAMPLE_MARKETS: readonly SampleMarketSpec[] = [
  {
    id: '910001',
    slug: 'sample-btc-above-100k',
    question: 'Sample: will BTC close above $100k this month?',
    volume: 250_000,
    periodHours: 6,
    phase: 0,
  },
  {
    id: '910002',
    slug: 'sample-rain-in-nyc',
    question: 'Sample: will it rain in NYC on Friday?',
    volume: 120_000,
    periodHours: 8,
    phase: 0.25,
  },
  {
    id: '910003',
    slug: 'sample-turnout-above-60',
    question: 'Sample: will turnout be above 60%?',
    volume: 80_000,
    periodHours: 12,
    phase: 0.5,
  },
  {
    id: '910004',
    slug: 'sample-new-album',
    question: 'Sample: will the band release a new album?',
    volume: 40_000,
    periodHours: 9,
    phase: 0.75,
  },
  {
    id: '910005',
    slug: 'sample-rate-cut',
    question: 'Sample: will the central bank cut rates?',
    volume: 30_000,
    periodHours: 5,
    phase: 0.1,
    resolvesYes: true,
  },
  {
    id: '910006',
    slug: 'sample-quiet-market',
    question: 'Sample: a market too thin for the default volume floor',
    volume: 600,
    periodHours: 7,
    phase: 0.4,
  },
];

const hex = (text: string) => createHash('sha256').update(text).digest('hex');
const address = (text: string) => `0x${hex(text).slice(0, 40)}`;
const tokenId = (text: string) => BigInt(`0x${hex(text)}`).toString(10);
const iso = (sec: number) => new Date(sec * 1000).toISOString();
const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** The YES price of a market at `sec`: 0.5 ± 0.3 on the market's period, kept inside (0.05, 0.95). */
export function samplePrice(m: SampleMarketSpec, sec: number): number {
  const turns = sec / (m.periodHours * 3600) + m.phase;
  return round3(Math.min(0.95, Math.max(0.05, 0.5 + 0.3 * Math.sin(2 * Math.PI * turns))));
}

export interface SampleTape {
  markets: Record<string, string | number | null>[];
  prints: Record<string, string | number | null>[];
  /** The window the prints cover, [t0, t1) as ISO dates. */
  t0: string;
  t1: string;
}

/** The rows of the sample tape whose prints end before midnight UTC of `end` (YYYY-MM-DD). */
export function sampleTape(end: string, days: number): SampleTape {
  const endSec = Date.parse(`${end}T00:00:00Z`) / 1000;
  if (!Number.isFinite(endSec)) throw new Error(`--end ${end}: not a YYYY-MM-DD date`);
  const startSec = endSec - days * DAY;
  const resolvedAt = endSec - DAY / 2;
  const markets = SAMPLE_MARKETS.map((m, i) => {
    const closed = m.resolvesYes !== undefined;
    return {
      id: m.id,
      question: m.question,
      slug: m.slug,
      condition_id: `0x${hex(`condition:${m.id}`)}`,
      token1: tokenId(`token1:${m.id}`),
      token2: tokenId(`token2:${m.id}`),
      answer1: 'Yes',
      answer2: 'No',
      closed: closed ? 1 : 0,
      active: 1,
      archived: 0,
      outcome_prices: closed ? (m.resolvesYes ? "['1', '0']" : "['0', '1']") : "['0.5', '0.5']",
      volume: m.volume,
      event_id: `91${i + 1}`,
      event_slug: `${m.slug}-event`,
      event_title: m.question.replace(/^Sample: /, 'Sample event: '),
      created_at: iso(startSec - 7 * DAY),
      end_date: iso(closed ? resolvedAt : endSec + 30 * DAY),
      updated_at: iso(closed ? resolvedAt : endSec),
      neg_risk: 0,
    };
  });
  const prints: SampleTape['prints'] = [];
  SAMPLE_MARKETS.forEach((m, mi) => {
    const last = m.resolvesYes !== undefined ? resolvedAt : endSec;
    let previous = samplePrice(m, startSec - STEP_SECONDS);
    // Each market prints at its own second of the step: no two prints of a market share a second.
    for (let sec = startSec + 37 * (mi + 1), n = 0; sec < last; sec += STEP_SECONDS, n++) {
      const price = samplePrice(m, sec);
      const usd = 5 + ((n * 37 + mi * 11) % 95);
      prints.push({
        timestamp: sec,
        block_number: 60_000_000 + Math.floor((sec - startSec) / 2),
        transaction_hash: `0x${hex(`tx:${m.id}:${n}`)}`,
        log_index: (n * 7 + mi) % 500,
        market_id: m.id,
        condition_id: `0x${hex(`condition:${m.id}`)}`,
        event_id: `91${mi + 1}`,
        price,
        usd_amount: usd,
        token_amount: round3(usd / price),
        side: price >= previous ? 'BUY' : 'SELL',
        maker: address(`maker:${m.id}:${n % 13}`),
        taker: address(`taker:${m.id}:${n % 17}`),
      });
      previous = price;
    }
  });
  prints.sort((a, b) => Number(a.timestamp) - Number(b.timestamp));
  return { markets, prints, t0: iso(startSec).slice(0, 10), t1: end };
}

/** Writes `markets.parquet` and `quant.parquet` of the sample tape into `outDir`; returns the tape. */
export async function writeSampleTape(outDir: string, end: string, days = 3): Promise<SampleTape> {
  const tape = sampleTape(end, days);
  mkdirSync(outDir, { recursive: true });
  const scratch = mkdtempSync(join(tmpdir(), 'sample-tape-'));
  try {
    await withDuckDb(async (db) => {
      for (const [name, rows, types] of [
        ['markets', tape.markets, MARKET_COLUMNS],
        ['quant', tape.prints, QUANT_COLUMNS],
      ] as const) {
        const json = join(scratch, `${name}.ndjson`);
        writeFileSync(json, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
        await db.run(
          `COPY (SELECT * FROM read_json(${sqlString(json)}, format = 'newline_delimited', columns = ${columnsLiteral(types)}))
           TO ${sqlString(join(outDir, `${name}.parquet`))} (FORMAT parquet)`,
        );
      }
    });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return tape;
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const out = arg('out');
  if (!out) {
    console.error(
      'usage: node --import tsx scripts/make-sample-tape.ts --out <dir> [--end YYYY-MM-DD (default: today, UTC)] [--days 3]',
    );
    process.exit(2);
  }
  const end = arg('end') ?? new Date().toISOString().slice(0, 10);
  const days = Number(arg('days') ?? 3);
  if (!Number.isInteger(days) || days < 1 || days > 366) {
    console.error(`--days ${arg('days')}: a whole number of days from 1 to 366`);
    process.exit(2);
  }
  writeSampleTape(out, end, days)
    .then((tape) => {
      console.log(
        `wrote ${join(out, 'markets.parquet')} (${tape.markets.length} markets) and ${join(out, 'quant.parquet')} (${tape.prints.length} prints), ${tape.t0} to ${tape.t1} (end excluded)`,
      );
      console.log(
        `import it with: npm run tape:import -- --markets ${join(out, 'markets.parquet')} --quant ${join(out, 'quant.parquet')}`,
      );
    })
    .catch((err: unknown) => {
      console.error(err instanceof Error ? err.message : String(err));
      process.exit(1);
    });
}
