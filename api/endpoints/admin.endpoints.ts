import { z } from 'zod';
import { endpoint } from './endpoint.js';
import { MarketIdParamsSchema } from './markets.endpoints.js';

const AuditValueSchema = z.union([z.number(), z.string(), z.boolean(), z.null()]);

const ScheduleSchema = z
  .object({
    name: z.string(),
    cron: z.string().describe('Cron expression, UTC (six fields when it has seconds)'),
    description: z.string().describe('What a tick sets in motion'),
    paused: z
      .boolean()
      .describe('Paused by an operator: the jobs process skips its ticks (counted in `skips`)'),
    paused_at: z.string().nullable(),
    paused_by: z.string().nullable().describe("The console operator's name, or `api` for Bearer callers"),
    runs: z.number(),
    failures: z.number(),
    skips: z.number(),
    last_run: z.object({
      started_at: z.string().nullable(),
      finished_at: z.string().nullable(),
      duration_ms: z.number().nullable(),
      outcome: z.enum(['succeeded', 'failed', 'running', 'skipped']).nullable(),
      error: z.string().nullable(),
    }),
    last_skipped_at: z.string().nullable(),
    next_run_at: z.string().describe('Next tick from the cron expression (a paused schedule skips it)'),
  })
  .meta({ id: 'Schedule' });

const OperatorActionSchema = z
  .object({
    at: z.string(),
    actor: z.string(),
    action: z.string(),
    target: z.string(),
    detail: z.string().nullable(),
  })
  .meta({ id: 'OperatorAction' });

const ScheduleNameParams = z.object({ name: z.string().min(1).max(64) });

const scheduleAction = (verb: 'pause' | 'resume' | 'run', summary: string, description: string) =>
  endpoint({
    method: 'post',
    path: `/api/admin/schedules/{name}/${verb}`,
    auth: 'operator',
    tag: 'Operator',
    summary,
    description,
    params: ScheduleNameParams,
    response: ScheduleSchema,
    errors: [404],
  });

export const adminEndpoints = {
  resolveMarket: endpoint({
    method: 'post',
    path: '/api/admin/markets/{market_id}/resolve',
    auth: 'operator',
    tag: 'Operator',
    summary: 'Resolve a market and settle its sim positions (winning shares pay 1 $SIM; void: 0.5 each)',
    description:
      '`outcome`: `true` (YES wins), `false` (NO wins) or `"void"`, a 50-50 resolution: every share, YES or NO, pays 0.5 $SIM (rounded down to the micro-unit per side), and `outcome` reads null. ' +
      'Imported markets resolve from their venue by themselves, void ones included (Polymarket 50-50, Kalshi scalar results pay what the venue pays). ' +
      'Idempotent: resolving again the same way answers the same; any other resolution is a 409.',
    params: MarketIdParamsSchema,
    body: z
      .strictObject({ outcome: z.union([z.boolean(), z.literal('void')]) })
      .meta({ id: 'ResolveMarketRequest' }),
    response: z
      .object({
        market_id: z.string(),
        status: z.literal('resolved'),
        outcome: z.boolean().nullable().describe('null for a void (50-50) resolution'),
        payout_per_share: z
          .object({ yes: z.number(), no: z.number() })
          .describe('What one YES and one NO share pay: 1/0, 0/1, or 0.5/0.5 when void'),
        resolved_at: z.string(),
        settlement: z.object({
          state: z.enum(['completed', 'queued']),
          positions: z.number().optional(),
          payout: z.number().optional(),
          job_id: z.string(),
        }),
      })
      .meta({ id: 'ResolveMarketResult' }),
    errors: [404, 409],
  }),
  venues: endpoint({
    method: 'get',
    path: '/api/admin/venues',
    auth: 'operator',
    tag: 'Operator',
    summary:
      "Each venue's base URLs and health (and the candle source's, `binance`): last success, last error, circuit state per host",
    response: z
      .object({
        venues: z.array(
          z.object({
            venue: z.string(),
            hosts: z.array(
              z.object({
                base_url: z.string(),
                circuit: z.enum(['closed', 'open', 'half_open']),
                last_success_at: z.string().nullable(),
                last_error_at: z.string().nullable(),
                last_error: z.string().nullable(),
                consecutive_failures: z.number(),
              }),
            ),
          }),
        ),
        mode: z.enum(['live', 'emulated']),
      })
      .meta({ id: 'VenueHealth' }),
  }),
  fillFeed: endpoint({
    method: 'get',
    path: '/api/admin/fill-feed',
    auth: 'operator',
    tag: 'Operator',
    summary:
      "The fill feed Reactor reacts to: per venue followed, its cursor, the chain's head, the lag, fills and signals per minute",
    description:
      "Venues that publish who traded (Polymarket's exchange events on Polygon) are followed by one workers process, " +
      'whichever holds the lease (`holder`), every `poll_ms`. `cursor_block` is the last block whose fills are stored ' +
      'and handed to Reactor; `head_block` the newest block at its last poll (`polled_at`); `lag_seconds` the chain ' +
      'time between the two. Blocks up to `final_block` (head minus `confirmations`) are final: a reorg above it ' +
      'withdraws the fills of the blocks it replaced. `fills_per_minute` counts the fills stored in the last minute, ' +
      '`signals_per_minute` the Reactor signals written in it (all venues). A venue never polled yet answers nulls.',
    response: z
      .object({
        enabled: z.boolean().describe('FILL_FEED_ENABLED'),
        poll_ms: z.number(),
        confirmations: z.number(),
        holder: z.string().nullable().describe('The workers process following now (host:pid:nonce), if any'),
        signals_per_minute: z.number(),
        venues: z.array(
          z.object({
            venue: z.string(),
            cursor_block: z.number().nullable(),
            cursor_block_at: z.string().nullable(),
            head_block: z.number().nullable(),
            head_at: z.string().nullable(),
            lag_blocks: z.number().nullable(),
            lag_seconds: z.number().nullable(),
            final_block: z.number().nullable(),
            polled_at: z.string().nullable(),
            fills_per_minute: z.number(),
          }),
        ),
      })
      .meta({ id: 'FillFeedStatus' }),
  }),
  settlements: endpoint({
    method: 'get',
    path: '/api/admin/settlements',
    auth: 'operator',
    tag: 'Operator',
    summary: 'Venue matches whose chain settlement is overdue: still neither confirmed nor failed',
    description:
      'A venue match (Polymarket) is booked at once and answered `unconfirmed` until its CLOB trades are CONFIRMED ' +
      'or FAILED on chain. One still pending `overdue_after_minutes` (SETTLEMENT_OVERDUE_MINUTES) after it was ' +
      'booked is listed here, oldest first (at most 200), logged once as an error and counted in the ' +
      '`venue_settlements_overdue` metric. It is still followed, after a quarter of its age each time (at least a ' +
      'minute, at most an hour: `next_look_at`), and leaves this list when the chain gives its final word. Its ' +
      'booking stands meanwhile: check the order on the venue (`order_id`).',
    response: z
      .object({
        overdue_after_minutes: z.number(),
        overdue: z.array(
          z.object({
            trade_id: z.string(),
            agent_id: z.string(),
            venue: z.string(),
            market_id: z.string(),
            action: z.string(),
            order_id: z.string().nullable(),
            booked_at: z
              .string()
              .describe('When the match was booked: the settlement’s age counts from here'),
            overdue_since: z.string().describe('When the follow-up first found it overdue'),
            last_looked_at: z.string().nullable(),
            next_look_at: z.string().nullable().describe('The venue is not asked about it again before this'),
          }),
        ),
      })
      .meta({ id: 'OverdueSettlements' }),
  }),
  audit: endpoint({
    method: 'get',
    path: '/api/admin/audit',
    auth: 'operator',
    tag: 'Operator',
    summary:
      "The ledger audit: every agent's balance and positions and every market's book recomputed from the durable record",
    description:
      'Agents from their ledger entries (counters, conservation of money, positions), markets from their event log ' +
      '(fills, anchor, version, status) and cross-checked with the filled trades. A document that has not applied ' +
      'its last entries yet is counted as `behind` and compared with its log up to what it applied. Every sim fill is ' +
      'replayed on its book: a sale must have paid its LMSR proceeds rounded down to the micro-unit and a buy got its ' +
      "shares rounded down to the share step, so the rounding is the house's (`house`: fills checked and the dust " +
      'they kept), and the cash the fills moved must equal, to the micro-unit, what the trades recorded. Values are ' +
      'micro-units (1e-6) as stored; `expected` is recomputed, `actual` is stored.',
    query: z.object({ max_differences: z.coerce.number().int().min(1).max(10_000).default(100) }),
    response: z
      .object({
        ok: z.boolean(),
        checked: z.object({ agents: z.number(), positions: z.number(), markets: z.number() }),
        behind: z.object({ agents: z.number(), markets: z.number() }),
        house: z.object({
          fills: z.number().describe('Sim fills replayed and checked.'),
          dust_micro: z
            .number()
            .describe(
              'What rounding kept for the house over those fills, micro-units (LMSR value − fill, ≥ 0).',
            ),
        }),
        differences: z.array(
          z.object({
            kind: z.enum(['agent', 'position', 'market']),
            id: z.string(),
            field: z.string(),
            expected: AuditValueSchema,
            actual: AuditValueSchema,
          }),
        ),
        difference_count: z.number(),
        truncated: z.boolean(),
        took_ms: z.number(),
      })
      .meta({ id: 'LedgerAudit' }),
  }),
  schedules: endpoint({
    method: 'get',
    path: '/api/admin/schedules',
    auth: 'operator',
    tag: 'Operator',
    summary: 'Every schedule of the jobs process: cron, last run and outcome, next run, failures, paused',
    response: z
      .object({
        schedules: z.array(ScheduleSchema),
        actions: z
          .array(OperatorActionSchema)
          .describe('The latest schedule actions (pause, resume, run), newest first'),
      })
      .meta({ id: 'ScheduleList' }),
  }),
  pauseSchedule: scheduleAction(
    'pause',
    'Pause a schedule: the jobs process skips its ticks until it is resumed',
    'Persisted in the database and read on every tick, so every jobs replica honours it. Audited.',
  ),
  resumeSchedule: scheduleAction('resume', 'Resume a paused schedule', 'Audited.'),
  runSchedule: scheduleAction(
    'run',
    "Run a schedule's tick now (it enqueues its work; workers do it)",
    'Runs whether or not the schedule is paused. Recorded as a run and audited with its outcome.',
  ),
};
