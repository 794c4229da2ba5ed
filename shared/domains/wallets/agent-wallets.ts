import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Wallet as EthersWallet } from 'ethers';
import { AppError } from '../../infra/errors.js';
import type { AgentRecord } from '../agents/agent.model.js';
import type { Models } from '../models.js';
import { fromMicro, toMicro } from '../money.js';
import { positionView } from '../positions/position-views.js';
import { isDuplicateKey, type Refusal } from '../refusal.js';
import { positionsWithMarkets } from '../positions/with-markets.js';
import type { Tier } from '../users/user.model.js';
import type { VenueId } from '../venues/venue-id.js';
import type { AgentWalletRecord } from './agent-wallet.model.js';
import type { AgentWalletRegisterRequest } from './agent-wallet.schemas.js';
import { newSealedKey, openSealedKey } from './sealed-key.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type AgentWalletsDeps = Pick<InfraDeps, 'env' | 'log' | 'metrics' | 'clock'> & { models: Models };

export type AgentWalletDeps = Pick<AgentWalletsDeps, 'models' | 'env'>;

/** The sealed key opens only on the agent wallet (agent and address) it was sealed for. */
const agentKeyContext = (agentId: string, address: string) => `agent-wallet:${agentId}:${address}`;

/** The agent a registration is for, with its human and the human's tier (resolved by the caller's auth). */
export interface AgentWalletTarget {
  agent: AgentRecord;
  tier: Tier;
}

/** An agent wallet as the API answers it. */
export const agentWalletView = (w: AgentWalletRecord, agentName: string) => ({
  agent_id: w._id,
  agent_name: agentName,
  wallet_address: w.address,
  wallet_source: w.source as 'managed',
  clob_credentials_registered: w.clobCredentials !== null,
  approvals_set: w.approvalsSet,
  created_at: w.createdAt.toISOString(),
});

const eliteRequired = (tier: Tier) =>
  new AppError(
    403,
    'elite_required',
    `Agent wallets are an Elite feature: this account is on the ${tier} tier`,
    'Upgrade the account to the Elite tier (ask the operator: PUT /api/admin/users/{user_id}/tier), then register again; meanwhile the agent trades from its human’s wallet (POST /api/sdk/wallet/managed, or link one).',
    { body: { tier, required_tier: 'elite' } },
  );

const owsClosed = () =>
  new AppError(
    410,
    'ows_registration_closed',
    'New OWS (client-held key) agent wallet registrations are no longer accepted',
    'Register a managed per-agent wallet instead: POST /api/sdk/agent-wallet/register without wallet_source, ows_wallet_name or wallet_address; the service creates its key and signs the agent’s orders.',
  );

/** A body naming a key the client holds: the retired OWS path (client-contract §8.5). */
const isClientHeldKey = (body: AgentWalletRegisterRequest) =>
  Boolean(body.ows_wallet_name || body.wallet_address) ||
  (body.wallet_source != null && body.wallet_source.toLowerCase() !== 'managed');

/**
 * `POST /api/sdk/agent-wallet/register` (Elite only): the agent's own managed wallet, a fresh key
 * sealed at rest. Idempotent: an agent has one wallet (`_id` = agent id), so concurrent calls make
 * one key and every call answers it.
 */
export async function registerAgentWallet(
  deps: AgentWalletDeps,
  { agent, tier }: AgentWalletTarget,
  body: AgentWalletRegisterRequest,
) {
  if (tier !== 'elite') throw eliteRequired(tier);
  if (isClientHeldKey(body)) throw owsClosed();
  let created = false;
  if (!(await deps.models.AgentWallet.exists({ _id: agent._id }))) {
    const { sealed } = newSealedKey(deps.env, (address) => agentKeyContext(agent._id, address));
    try {
      await deps.models.AgentWallet.create({ _id: agent._id, ...sealed, source: 'managed' });
      created = true;
    } catch (err) {
      // Another request made the agent's wallet first: that one is the wallet.
      if (!isDuplicateKey(err, '_id')) throw err;
    }
  }
  const wallet = (await deps.models.AgentWallet.findById(agent._id).lean())!;
  return {
    success: true as const,
    ...agentWalletView(wallet, agent.name),
    created,
    message: `Agent wallet ${wallet.address} is ${agent.name}’s own: fund it with pUSD on Polygon and send wallet_address=${wallet.address} on a Polymarket trade to sign it with this wallet.`,
  };
}

/** `GET /api/sdk/agent-wallets`: the wallets of the user's agents, oldest first. */
export async function listAgentWallets(models: Models, userId: string | null) {
  if (!userId) return { wallets: [] };
  const agents = await models.Agent.find({ claimedBy: userId }, { name: 1 }).lean();
  const names = new Map(agents.map((a) => [a._id, a.name]));
  const wallets = await models.AgentWallet.find({ _id: { $in: [...names.keys()] } }).lean();
  wallets.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  return { wallets: wallets.map((w) => agentWalletView(w, names.get(w._id)!)) };
}

/**
 * `GET /api/sdk/agent-wallet/{agent_id}/pnl` (all tiers): the agent's P&L on real venues, from its
 * positions where money is real (realized from closes and settlements, unrealized at the market's
 * price). `paperMoney` says which venues trade paper money (the venues' capabilities).
 */
export async function agentWalletPnl(
  models: Models,
  agent: Pick<AgentRecord, '_id'>,
  paperMoney: (venue: VenueId) => boolean,
) {
  const wallet = await models.AgentWallet.findById(agent._id, { address: 1 }).lean();
  const rows = (await positionsWithMarkets(models, agent._id)).filter(({ p }) => !paperMoney(p.venue));
  const positions = rows.map(({ p, m }) => positionView(p, m, 0));
  const sum = (field: 'realized_pnl' | 'unrealized_pnl' | 'cost_basis' | 'current_value') =>
    positions.reduce((s, v) => s + toMicro(v[field]), 0);
  const realized = sum('realized_pnl');
  const unrealized = sum('unrealized_pnl');
  return {
    agent_id: agent._id,
    wallet_address: wallet?.address ?? null,
    realized_pnl: fromMicro(realized),
    unrealized_pnl: fromMicro(unrealized),
    total_pnl: fromMicro(realized + unrealized),
    total_cost: fromMicro(sum('cost_basis')),
    total_value: fromMicro(sum('current_value')),
    positions,
  };
}

/**
 * For a trade carrying `wallet_address`: the agent's own wallet when it is that address (compared
 * case-insensitively), else the refusal (nothing is sent from a wallet that is not the agent's).
 */
export async function agentWalletForTrade(
  models: Models,
  agentId: string,
  walletAddress: string,
): Promise<{ address: string } | Refusal> {
  const wallet = await models.AgentWallet.findById(agentId, { address: 1 }).lean();
  if (wallet && wallet.address.toLowerCase() === walletAddress.trim().toLowerCase())
    return { address: wallet.address };
  return {
    error: `wallet_address ${walletAddress} is not a wallet registered for this agent.`,
    errorCode: 'wallet_not_registered',
    retryable: false,
    hint: wallet
      ? `This agent's wallet is ${wallet.address}: send that as wallet_address, or omit wallet_address to trade from your human's wallet.`
      : "Omit wallet_address to trade from your human's wallet, or register an agent wallet (POST /api/sdk/agent-wallet/register, Elite) and send its address.",
    category: 'venue',
  };
}

/** For the trading engine: the agent wallet's signer (in memory only), or null when the agent has none. */
export async function agentWalletSigner(
  deps: AgentWalletDeps,
  agentId: string,
): Promise<EthersWallet | null> {
  const wallet = await deps.models.AgentWallet.findById(agentId, { address: 1, key: 1 }).lean();
  if (!wallet) return null;
  return openSealedKey(
    deps.env,
    wallet,
    agentKeyContext(agentId, wallet.address),
    `agent wallet of agent ${agentId}`,
  );
}
