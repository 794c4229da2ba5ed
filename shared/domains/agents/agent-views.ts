import { fromMicro } from '../money.js';
import type { Tier } from '../users/user.model.js';
import { actingUserOf, type AgentRecord } from './agent.model.js';
import type { AgentMeResponse } from './agent.schemas.js';
import { walletFieldsOf, type WalletFields } from '../wallets/wallet-view.js';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);
const rate = (wins: number, losses: number) => (wins + losses > 0 ? wins / (wins + losses) : null);

/**
 * `GET /api/sdk/agents/me`. P&L is realised P&L plus the marked value of open positions; until the
 * agent holds positions the unrealised part is zero. P&L fields appear only with `include=pnl`.
 */
export function agentMeView(
  agent: AgentRecord,
  opts: {
    includePnl: boolean;
    claimUrl: string | null;
    unrealizedPnlMicro?: number;
    /** The owner's tier (free before claiming) and what it allows. */
    tier: Tier;
    importsPerDay: number;
    /** Claimed, not suspended, and the owner's sdk_real_trading_enabled on. */
    realTradingEnabled: boolean;
    /** The owner's wallet (none before claiming). */
    wallet?: WalletFields;
    /** The agent's own (Elite) wallet, when it registered one. */
    agentWalletAddress?: string | null;
  },
): AgentMeResponse {
  const view: AgentMeResponse = {
    agent_id: agent._id,
    name: agent.name,
    description: agent.description ?? null,
    status: agent.status,
    balance: fromMicro(agent.balanceMicro),
    starting_balance: fromMicro(agent.startingBalanceMicro),
    trades_count: agent.tradesCount,
    win_count: agent.winCount,
    loss_count: agent.lossCount,
    win_rate: rate(agent.winCount, agent.lossCount),
    sim_win_count: agent.winCount,
    sim_loss_count: agent.lossCount,
    sim_win_rate: rate(agent.winCount, agent.lossCount),
    claimed: agent.claimedBy !== null && agent.claimedBy !== undefined,
    // The user it acts for: none once released (its former owner's id is theirs, not the agent's).
    claimed_by: actingUserOf(agent),
    claimed_at: iso(agent.claimedAt),
    real_trading_enabled: opts.realTradingEnabled,
    created_at: iso((agent as { createdAt?: Date }).createdAt) ?? new Date(0).toISOString(),
    last_trade_at: iso(agent.lastTradeAt),
    key_prefix: agent.keyPrefix,
    claim_url: agent.claimedBy ? null : opts.claimUrl,
    rate_limits: {
      tier: opts.tier,
      imports_per_day: opts.importsPerDay,
      endpoints: { '/api/sdk/context': { requests_per_minute: 300 } },
    },
    auto_redeem_enabled: agent.autoRedeemEnabled,
    ...(opts.wallet ?? walletFieldsOf(null)),
    per_agent_wallet_address: opts.agentWalletAddress ?? null,
    per_agent_deposit_wallet_address: null,
    per_agent_dw_active: null,
  };
  if (opts.includePnl) {
    const pnlMicro = agent.realizedPnlMicro + (opts.unrealizedPnlMicro ?? 0);
    const pnl = fromMicro(pnlMicro);
    const pct =
      agent.startingBalanceMicro > 0 ? Math.round((pnlMicro / agent.startingBalanceMicro) * 1e6) / 1e4 : 0;
    Object.assign(view, {
      sim_pnl: pnl,
      total_pnl: pnl,
      sim_pnl_percent: pct,
      total_pnl_percent: pct,
      polymarket_pnl: 0,
      kalshi_pnl: 0,
    });
  }
  return view;
}

export function claimInfoView(agent: AgentRecord) {
  return {
    agent_id: agent._id,
    name: agent.name,
    description: agent.description ?? null,
    status: agent.status,
    claimed: Boolean(agent.claimedBy),
    claim_code: agent.claimCode,
    created_at: iso((agent as { createdAt?: Date }).createdAt) ?? new Date(0).toISOString(),
    starting_balance: fromMicro(agent.startingBalanceMicro),
    claim_instructions: agent.claimedBy
      ? 'This agent has been claimed.'
      : 'Sign in and call POST /api/sdk/agents/claim with {"claim_code": "<this code>"} and your user token to claim this agent.',
  };
}
