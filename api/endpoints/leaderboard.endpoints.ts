import { z } from 'zod';
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
  })
  .meta({ id: 'LeaderboardEntry' });

export const leaderboardEndpoints = {
  sdkAgentsLeaderboard: endpoint({
    method: 'get',
    path: '/api/leaderboard/sdk-agents',
    auth: 'none',
    tag: 'Leaderboard',
    summary:
      'Agents with at least one trade, ranked by total P&L (open positions marked at current prices, re-marked every minute)',
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
};
