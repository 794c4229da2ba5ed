import { fromMicro } from '../money.js';
import type { Tier } from '../users/user.model.js';
import { actingUserOf, type AgentRecord } from './agent.model.js';
import type { AgentMeResponse } from './agent.schemas.js';
import { externalVenueIds, listedVenues, POOL_VENUE, type VenueId } from '../venues/venue-id.js';
import {
  perAgentWalletFieldsOf,
  walletFieldsOf,
  type PerAgentWalletFields,
  type WalletFields,
} from '../wallets/wallet-view.js';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);
const rate = (wins: number, losses: number) => (wins + losses > 0 ? wins / (wins + losses) : null);

/**
 * `GET /api/sdk/agents/me`. P&L fields appear only with `include=pnl`: each venue's as the portfolio
 * counts it (realised plus open positions marked at the venue's price), `<venue>_pnl` per external
 * venue, `total_pnl` over all venues (client-contract §10: "total_pnl is all venues").
 */
export function agentMeView(
  agent: AgentRecord,
  opts: {
    includePnl: boolean;
    claimUrl: string | null;
    /** Each venue's P&L in micro-units (trading/reads.ts venuePnlsMicro); read only for include=pnl. */
    venuePnlMicro?: ReadonlyMap<VenueId, number>;
    /** The owner's tier (free before claiming) and what it allows. */
    tier: Tier;
    importsPerDay: number;
    /** Claimed, not suspended, and the owner's sdk_real_trading_enabled on. */
    realTradingEnabled: boolean;
    /** The owner's wallet (none before claiming). */
    wallet?: WalletFields;
    /** The agent's own (Elite) wallet and the deposit wallet it trades through (wallet-view.ts). */
    perAgentWallet?: PerAgentWalletFields;
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
    ...(opts.perAgentWallet ?? perAgentWalletFieldsOf(null, walletFieldsOf(null))),
  };
  if (opts.includePnl) {
    const pnls = opts.venuePnlMicro ?? new Map<VenueId, number>();
    const simMicro = pnls.get(POOL_VENUE) ?? 0;
    // Summed in micro-units, as each venue's figure is.
    const totalMicro = [...pnls.values()].reduce((s, micro) => s + micro, 0);
    const percent = (micro: number) =>
      agent.startingBalanceMicro > 0 ? Math.round((micro / agent.startingBalanceMicro) * 1e6) / 1e4 : 0;
    Object.assign(view, {
      sim_pnl: fromMicro(simMicro),
      total_pnl: fromMicro(totalMicro),
      sim_pnl_percent: percent(simMicro),
      total_pnl_percent: percent(totalMicro),
      ...Object.fromEntries(
        listedVenues(externalVenueIds(), (v) => pnls.has(v)).map((v) => [
          `${v}_pnl`,
          fromMicro(pnls.get(v) ?? 0),
        ]),
      ),
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
