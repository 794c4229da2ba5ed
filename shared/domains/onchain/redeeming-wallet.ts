import type { Wallet as EthersWallet } from 'ethers';
import type { Deps } from '../../composition/deps.js';
import type { Models } from '../models.js';
import { agentWalletSigner } from '../wallets/agent-wallets.js';
import { managedSigner, walletOf } from '../wallets/managed-wallet.js';
import type { WalletOwnership } from '../wallets/wallet.model.js';

/**
 * Whose outcome tokens a redemption pays. The human's wallet holds what their agents bought
 * (`agentId` null), except for agents with a wallet of their own (Elite agent wallets): their trades
 * are signed by and settle into that wallet, so it is redeemed on its own, for that agent only.
 */
export interface RedemptionScope {
  userId: string;
  agentId: string | null;
}

export interface RedeemingWallet {
  address: string;
  ownership: WalletOwnership;
  /** The service's key for the wallet (managed and agent wallets); null for an external wallet. */
  signer: () => Promise<EthersWallet | null>;
}

/** The scope of a claimed agent's redemption: its own wallet when it registered one, else its human's. */
export async function scopeOfAgent(
  models: Models,
  userId: string,
  agentId: string,
): Promise<RedemptionScope> {
  return { userId, agentId: (await models.AgentWallet.exists({ _id: agentId })) ? agentId : null };
}

/** The wallet a scope redeems from, or null when there is none (no wallet linked or created). */
export async function redeemingWallet(
  deps: Pick<Deps, 'models' | 'env'>,
  scope: RedemptionScope,
): Promise<RedeemingWallet | null> {
  const { agentId } = scope;
  if (agentId) {
    const own = await deps.models.AgentWallet.findById(agentId, { address: 1 }).lean();
    return (
      own && { address: own.address, ownership: 'managed', signer: () => agentWalletSigner(deps, agentId) }
    );
  }
  const wallet = await walletOf(deps, { kind: 'user', id: scope.userId });
  if (!wallet) return null;
  return {
    address: wallet.address,
    ownership: wallet.ownership,
    signer: async () => (wallet.ownership === 'managed' ? managedSigner(deps, scope.userId) : null),
  };
}

/** The Polymarket positions in `marketId` whose tokens the scope's wallet holds. */
export async function scopePositions(
  models: Models,
  scope: RedemptionScope,
  marketId: string,
  filter: Record<string, unknown> = {},
) {
  let agentIds: string[];
  if (scope.agentId) agentIds = [scope.agentId];
  else {
    const agents = await models.Agent.find({ claimedBy: scope.userId }, { _id: 1 }).lean();
    const own = await models.AgentWallet.find({ _id: { $in: agents.map((a) => a._id) } }, { _id: 1 }).lean();
    const withOwn = new Set(own.map((w) => w._id));
    agentIds = agents.map((a) => a._id).filter((id) => !withOwn.has(id));
  }
  return models.Position.find({
    agentId: { $in: agentIds },
    marketId,
    venue: 'polymarket',
    ...filter,
  }).lean();
}
