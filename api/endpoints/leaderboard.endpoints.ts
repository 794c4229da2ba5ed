import { z } from 'zod';
import { TRADER_TYPES } from '../../shared/domains/reads/leaderboard.js';
import { RANKING_RULE } from '../../shared/domains/reads/venue-boards.js';
import { venueEnum } from '../../shared/domains/venues/venue-schemas.js';
import { endpoint } from './endpoint.js';

const Entry = z
  .looseObject({
    rank: z.number(),
    id: z.string(),
    name: z.string(),
    status: z.string(),
    total_pnl: z.number(),
    pnl_percent: z.number(),
    win_rate: z.number(),
    trades_count: z.number(),
    win_count: z.number(),
    loss_count: z.number(),
    is_claimed: z.boolean(),
    unranked_pnl: z.number().optional().meta({
      description: 'P&L on markets traded together with a linked agent: shown, not ranked (farming policy).',
    }),
  })
  .meta({ id: 'LeaderboardEntry' });

export const leaderboardEndpoints = {
  sdkAgentsLeaderboard: endpoint({
    method: 'get',
    path: '/api/leaderboard/sdk-agents',
    auth: 'none',
    tag: 'Leaderboard',
    summary:
      'Agents with at least one sim trade, ranked by sim P&L in $SIM (open positions marked at current prices, re-marked every minute)',
    description:
      'The sim board: `total_pnl` is realised + marked P&L of sim positions only, in $SIM, and `trades_count` the sim trades; an agent that traded only on a real venue is not listed; real-venue P&L is in dollars and ranks on `/api/leaderboard/{venue}`, never added here. ' +
      'Farming policy: two agents of one owner or one registration address that trade the same market within LEADERBOARD_LINK_WINDOW_HOURS of each other do not rank on it; `unranked_pnl` shows what was left out.',
    query: z.object({
      limit: z.coerce.number().int().min(1).max(500).default(100),
      offset: z.coerce.number().int().min(0).max(100_000).default(0),
    }),
    response: z
      .object({ entries: z.array(Entry), total_agents: z.number(), marked_at: z.string().nullable() })
      .meta({ id: 'Leaderboard' }),
  }),
  allLeaderboards: endpoint({
    method: 'get',
    path: '/api/leaderboard/all',
    auth: 'none',
    tag: 'Leaderboard',
    summary:
      'Every leaderboard at once (MCP client): SDK agents, native agents, Polymarket and Kalshi traders',
    description:
      '`polymarket` and `kalshi` are the first `limit` entries of GET /api/leaderboard/{venue} (pUSD and USDC). ' +
      RANKING_RULE,
    query: z.object({ limit: z.coerce.number().int().min(1).max(50).default(20) }),
    response: z
      .object({
        sdk_agents: z.array(Entry),
        native_agents: z.array(Entry),
        polymarket: z.array(Entry),
        kalshi: z.array(Entry),
      })
      .meta({ id: 'AllLeaderboards' }),
  }),
  venueLeaderboard: endpoint({
    method: 'get',
    path: '/api/leaderboard/{venue}',
    auth: 'none',
    tag: 'Leaderboard',
    summary: 'The agents that traded on one venue, ranked by their P&L there in its currency',
    description:
      RANKING_RULE +
      ' Every trade on this service is an agent’s: `trader_type=human` lists nobody, `agent` and `all` list the same agents.',
    params: z.object({
      venue: z
        .preprocess((v) => (typeof v === 'string' ? v.toLowerCase() : v), venueEnum('ids'))
        .meta({ description: '`sim`, `polymarket` or `kalshi`.' }),
    }),
    query: z.object({
      trader_type: z
        .preprocess((v) => (typeof v === 'string' ? v.toLowerCase() : v), z.enum(TRADER_TYPES))
        .default('all'),
      limit: z.coerce.number().int().min(1).max(500).default(100),
      offset: z.coerce.number().int().min(0).max(100_000).default(0),
    }),
    response: z
      .object({
        venue: venueEnum('ids'),
        trader_type: z.enum(TRADER_TYPES),
        currency: z.string().meta({ description: 'What `total_pnl` is in: `$SIM`, `pUSD` or `USDC`.' }),
        marked_at: z.string().nullable().meta({ description: 'When the board was last re-marked (ISO).' }),
        entries: z.array(Entry),
        total_count: z.number(),
      })
      .meta({ id: 'VenueLeaderboard' }),
  }),
};
