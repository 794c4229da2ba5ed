import { z } from 'zod';
import {
  ExperimentAnswerSchema,
  ExperimentRequestSchema,
  ResearchStateQuerySchema,
  ResearchStateSchema,
} from '../../shared/domains/research/research.schemas.js';
import { BACKTEST_RULE } from '../../shared/domains/reads/skill-backtest.js';
import { lower } from '../../shared/domains/trading/trade.schemas.js';
import { venueEnum } from '../../shared/domains/venues/venue-schemas.js';
import { TIERS } from '../../shared/domains/users/user.model.js';
import { endpoint } from './endpoint.js';
import { UserAgent } from './users.endpoints.js';
import { DEFAULT_VENUE } from '../../shared/domains/venues/venue-id.js';

/**
 * Why no tier gate: the hosted service sells these to Pro accounts (403, string `detail`); a
 * self-hosted service's operator owns its data and its compute, so every tier may call them.
 */
const OPEN_TO_ALL_TIERS =
  'Open to every tier on this self-hosted service (the hosted one answers 403 with a string `detail` below Pro; this one never does).';

const BacktestRequest = z
  .object({
    skill_slug: z.string().trim().min(1).max(200),
    config: z.record(z.string().min(1).max(100), z.number()).default({}),
    days: z.number().int().min(1).max(365).default(7),
    venue: z.preprocess(lower, venueEnum('ids')).default(DEFAULT_VENUE),
  })
  .meta({ id: 'BacktestRequest' });

const BacktestAnswer = z
  .object({
    trades_total: z.number().int(),
    trades_included: z.number().int(),
    trades_excluded: z.number().int(),
    simulated_pnl: z.number(),
    original_pnl: z.number(),
    win_rate: z.number().min(0).max(1),
    improvement_pct: z.number().nullable(),
    ignored_config_keys: z.array(z.string()),
    skill_slug: z.string(),
    days: z.number().int(),
    venue: z.string(),
  })
  .meta({ id: 'BacktestAnswer' });

const FleetSummary = z
  .object({
    owner_id: z.string().nullable(),
    tier: z.enum(TIERS),
    agents_total: z.number().int(),
    agents_active: z.number().int(),
    total_balance: z.number(),
    total_pnl: z.number(),
    realized_pnl: z.number(),
    trades_today: z.number().int(),
    agents: z.array(UserAgent.extend({ trades_today: z.number().int() })),
  })
  .meta({ id: 'FleetSummary' });

export const researchEndpoints = {
  researchState: endpoint({
    method: 'get',
    path: '/api/sdk/autoresearch/state',
    auth: 'agent',
    tag: 'Research',
    summary: 'Where your autoresearch on a skill stands: last experiment, segment, best kept metric',
    description:
      'From the experiment with the highest number: its segment, metric and direction; `best_metric` is the best `keep` of that segment and metric. ' +
      'A skill without experiments (the `__probe__` canary too) answers 0s and nulls. ' +
      OPEN_TO_ALL_TIERS,
    query: ResearchStateQuerySchema,
    response: ResearchStateSchema,
  }),
  recordExperiment: endpoint({
    method: 'post',
    path: '/api/sdk/autoresearch/experiments',
    auth: 'agent',
    tag: 'Research',
    summary: 'Record one experiment of your autoresearch on a skill',
    description:
      'Judged against the kept experiments of the same skill, segment and metric recorded before it (`prior_best_value`, null when none): ' +
      '`is_new_best` — a `keep` that beats the prior best in `best_direction` (strictly), or the first `keep`; ' +
      '`status_mismatch` — a `keep` that does not beat it, or a `discard` that does; ' +
      '`zero_metric_keep` — a `keep` whose `metric_value` is exactly 0 (usually a measurement that failed). ' +
      '`crash` and `checks_failed` never count as best. Idempotent on (agent, `skill_slug`, `experiment_number`): a resend answers the first record unchanged, whatever it carries. ' +
      '`latest_version` is not given: this service does not version skills. ' +
      OPEN_TO_ALL_TIERS,
    body: ExperimentRequestSchema.meta({ id: 'ExperimentRequest' }),
    response: ExperimentAnswerSchema,
  }),
  backtestSkill: endpoint({
    method: 'post',
    path: '/api/sdk/autoresearch/backtest',
    auth: 'agent',
    tag: 'Research',
    summary: 'Re-score your past trades of a skill under thresholds on their signal_data',
    description: `${BACKTEST_RULE} ${OPEN_TO_ALL_TIERS}`,
    body: BacktestRequest,
    response: BacktestAnswer,
  }),
  fleetSummary: endpoint({
    method: 'get',
    path: '/api/sdk/fleet/summary',
    auth: 'agent',
    tag: 'Research',
    summary: "Your human's agents: counts, balances, P&L, trades today, one row per agent",
    description:
      'The agents claimed by the user who claimed you (you alone while unclaimed). Rows are the owner’s view of each agent (as GET /api/sdk/agents) plus `trades_today`, its filled trades since 00:00 UTC; totals sum the rows. ' +
      OPEN_TO_ALL_TIERS,
    freshAgent: true,
    response: FleetSummary,
  }),
};
