import { z } from 'zod';
import { lower } from '../../shared/domains/trading/trade.schemas.js';
import { normalizeVenue } from '../../shared/domains/venues/venue-id.js';
import { venueEnum } from '../../shared/domains/venues/venue-schemas.js';
import { endpoint } from './endpoint.js';

const MONITOR_NOTE =
  'Monitors are evaluated every RISK_MONITOR_SECONDS against the venue’s current price (sim: the sim book; Polymarket/Kalshi: the venue price). When the side’s P&L reaches -stop_loss_pct or +take_profit_pct (fractions of cost: 0.5 = 50%), the monitor triggers once: on sim and on managed wallets the service sells the shares through the normal trade pipeline (`source: "risk-monitor"`, every safeguard applies); for external wallets and Kalshi it raises a risk alert (GET /api/sdk/risk-alerts) for the client to sell. A buy with the owner’s `auto_risk_monitor_enabled` arms a monitor with `default_stop_loss_pct`/`default_take_profit_pct` unless the side has one; a monitor the agent deleted is not armed again by a buy made before the delete (only by a later one).';

/**
 * Optional: the official client never sends a venue (client-contract §7.2), so without one the
 * service uses the venue of the agent's holding (set) or monitor (delete) on that side.
 */
const monitorVenue = z
  .preprocess(lower, venueEnum('names'))
  .optional()
  .transform((v) => (v === undefined ? undefined : normalizeVenue(v)!.venue))
  .meta({
    description:
      'Optional. Without it: the venue where the agent holds the side (set) or has its monitor (delete); on several, a 409 `venue_ambiguous` lists them (`venues`); on none, polymarket (a 404).',
  });
const side = z.preprocess(lower, z.enum(['yes', 'no']));
const pct = (max: number, what: string) =>
  z
    .number()
    .gt(0, `${what} is a fraction of the position’s cost above 0 (0.5 = 50%)`)
    .max(max, `${what} is at most ${max}`)
    .nullish();

const MonitorRow = z.object({
  market_id: z.string(),
  question: z.string().nullable(),
  venue: z.string(),
  side: z.enum(['yes', 'no']),
  stop_loss_pct: z.number().nullable(),
  take_profit_pct: z.number().nullable(),
  shares: z.number(),
  cost_basis: z.number(),
  current_price: z.number().nullable(),
  pnl_pct: z.number().nullable(),
  status: z.enum(['active', 'triggered']),
  exit_reason: z.enum(['stop_loss', 'take_profit']).nullable(),
  auto: z.boolean(),
  created_at: z.string(),
});

const RiskAlert = z.object({
  market_id: z.string(),
  side: z.enum(['yes', 'no']),
  shares: z.number(),
  exit_reason: z.enum(['stop_loss', 'take_profit']),
  token_id: z.string().nullable(),
  venue: z.string(),
  trigger_price: z.number().nullable(),
  exit_refused: z.string().nullable().meta({
    description:
      'Set when the service sold itself (sim, managed wallet) and the sell was refused: its error_code.',
  }),
  created_at: z.string(),
  expires_at: z.string(),
});

export const monitorEndpoints = {
  setMonitor: endpoint({
    method: 'post',
    path: '/api/sdk/positions/{market_id}/monitor',
    auth: 'agent',
    tag: 'Risk',
    summary:
      'Set a stop-loss / take-profit monitor on one side of a position (venue: where the side is held, unless named)',
    description: MONITOR_NOTE,
    params: z.object({ market_id: z.string().trim().min(1).max(200) }),
    query: z.object({ venue: monitorVenue }),
    body: z.object({
      side,
      stop_loss_pct: pct(1, 'stop_loss_pct'),
      take_profit_pct: pct(100, 'take_profit_pct'),
    }),
    response: z
      .object({
        success: z.boolean(),
        market_id: z.string(),
        side: z.enum(['yes', 'no']),
        venue: z.string(),
        message: z.string(),
        stop_loss_pct: z.number().nullable(),
        take_profit_pct: z.number().nullable(),
        shares: z.number(),
        cost_basis: z.number(),
      })
      .meta({ id: 'MonitorSet' }),
    errors: [404, 409],
  }),
  listMonitors: endpoint({
    method: 'get',
    path: '/api/sdk/positions/monitors',
    auth: 'agent',
    tag: 'Risk',
    summary: 'The agent’s monitors still watching or exiting (`monitors` and `settings` carry the same list)',
    response: z
      .object({ monitors: z.array(MonitorRow), settings: z.array(MonitorRow), count: z.number().int() })
      .meta({ id: 'MonitorList' }),
  }),
  deleteMonitor: endpoint({
    method: 'delete',
    path: '/api/sdk/positions/{market_id}/monitor',
    auth: 'agent',
    tag: 'Risk',
    summary: 'Remove a monitor (venue: where the side’s monitor is, unless named)',
    params: z.object({ market_id: z.string().trim().min(1).max(200) }),
    query: z.object({ side, venue: monitorVenue }),
    response: z.object({
      success: z.boolean(),
      market_id: z.string(),
      side: z.enum(['yes', 'no']),
      venue: z.string(),
      message: z.string(),
    }),
    errors: [404, 409],
  }),
  listRiskAlerts: endpoint({
    method: 'get',
    path: '/api/sdk/risk-alerts',
    auth: 'agent',
    tag: 'Risk',
    summary:
      'Triggered monitors on positions the service cannot sell (external wallets, Kalshi); each lapses after an hour',
    response: z.object({ risk_alerts: z.array(RiskAlert) }).meta({ id: 'RiskAlertList' }),
  }),
  deleteRiskAlert: endpoint({
    method: 'delete',
    path: '/api/sdk/risk-alerts/{market_id}/{side}',
    auth: 'agent',
    tag: 'Risk',
    summary: 'Dismiss a risk alert once the client has acted on it',
    params: z.object({ market_id: z.string().trim().min(1).max(200), side }),
    response: z.object({ success: z.boolean(), market_id: z.string(), side: z.enum(['yes', 'no']) }),
    errors: [404],
  }),
};
