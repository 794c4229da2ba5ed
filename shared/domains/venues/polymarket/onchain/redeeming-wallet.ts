import type { InfraDeps } from '../../../../infra/infra-deps.js';
import type { Wallet as EthersWallet } from 'ethers';
import { AppError } from '../../../../infra/errors.js';
import type { Models } from '../../../models.js';
import { backfillHolder, type HolderDeps } from '../../../wallets/backfill-holders.js';
import { holderKey } from '../../../positions/holder.js';
import { positionId, type PositionRecord } from '../../../positions/position.model.js';
import { agentWalletSigner } from '../../../wallets/agent-wallets.js';
import { managedSigner, walletOf } from '../../../wallets/managed-wallet.js';
import type { WalletOwnership } from '../../../wallets/wallet.model.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type RedeemingWalletDeps = Pick<InfraDeps, 'env'> & { models: Models };

/**
 * Whose wallet a redemption redeems from: an agent's own wallet (Elite agent wallets, `agentId`
 * set), else the human's (`agentId` null). Which one holds a position is recorded on it
 * (`holderAddress`); scopeOfAgent picks the scope from that.
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

/**
 * A position still holding shares whose holder neither the venue nor the fills tell: for an agent
 * with a wallet of its own, either wallet may hold it, and redeeming from a guess would burn nothing
 * (or the wrong shares). Retryable: the backfill job asks the venue again every 10 minutes.
 */
export const holderUnknown = (positionId: string) =>
  new AppError(
    503,
    'holder_unknown',
    `Which wallet holds position ${positionId} is not known yet: the venue and the recorded fills do not tell`,
    'Retry later: the backfill-position-holders job looks again every 10 minutes. If this persists, ask the operator to record the holding wallet.',
    { retryable: true, headers: { 'Retry-After': '600' } },
  );

/** Whether a position still holds shares. */
const holdsShares = (p: PositionRecord) =>
  p.status !== 'settled' && p.sharesYesMicro + p.sharesNoMicro + p.reservedYesMicro + p.reservedNoMicro > 0;

/**
 * The scope that redeems a claimed agent's position in `marketId`: the wallet holding it. An agent
 * that bought through its human's wallet and registered a wallet of its own later still has its
 * shares in the human's wallet, and they are redeemed there. For an agent with a wallet of its own,
 * a position whose holder is not known (older than the field, and the backfill finds none) is not
 * redeemed from a guess: a retryable 503 `holder_unknown`. An agent without one has one candidate,
 * its human's wallet.
 */
export async function scopeOfAgent(
  deps: HolderDeps,
  userId: string,
  agentId: string,
  marketId: string,
): Promise<RedemptionScope> {
  const [own, position] = await Promise.all([
    deps.models.AgentWallet.findById(agentId, { address: 1 }).lean(),
    deps.models.Position.findById(positionId(agentId, marketId, 'polymarket')).lean(),
  ]);
  if (!own) return { userId, agentId: null };
  const holder = position && (position.holderAddress ?? (await backfillHolder(deps, position)));
  if (position && !holder && holdsShares(position)) throw holderUnknown(position._id);
  const holdsIt = !holder || holder === holderKey('polymarket', own.address);
  return { userId, agentId: holdsIt ? agentId : null };
}

/** The wallet a scope redeems from, or null when there is none (no wallet linked or created). */
export async function redeemingWallet(
  deps: Pick<RedeemingWalletDeps, 'models' | 'env'>,
  scope: RedemptionScope,
): Promise<RedeemingWallet | null> {
  const { agentId } = scope;
  if (agentId) {
    const own = await deps.models.AgentWallet.findById(agentId, { address: 1 }).lean();
    return (
      own && {
        address: own.address,
        ownership: 'managed',
        signer: () => agentWalletSigner(deps, agentId),
      }
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

/** The holder addresses of the scope's wallet: the agent wallet, or the human's EOA and its order maker. */
export async function scopeHolders(
  models: Models,
  scope: Pick<RedemptionScope, 'userId' | 'agentId'>,
): Promise<string[]> {
  const addresses = scope.agentId
    ? [(await models.AgentWallet.findById(scope.agentId, { address: 1 }).lean())?.address]
    : await walletOf({ models }, { kind: 'user', id: scope.userId }).then((w) => [w?.address, w?.maker]);
  return [...new Set(addresses.filter((a): a is string => !!a).map((a) => holderKey('polymarket', a)))];
}

/**
 * The Polymarket positions in `marketId` whose tokens the scope's wallet holds: the scope's agents'
 * positions recorded as held there (its own agent for an agent scope, the human's claimed agents
 * otherwise: an address is not proof of ownership, since a linked deposit wallet is only what the
 * user typed), and, for the human's wallet, those of its agents without a wallet of their own whose
 * holder is not known yet (their only candidate), so that a redemption still settles everything it
 * burned. An agent wallet's scope takes no position of unknown holder (scopeOfAgent refuses those).
 */
export async function scopePositions(
  models: Models,
  scope: RedemptionScope,
  marketId: string,
  filter: Record<string, unknown> = {},
) {
  let agents: string[];
  let unknownHolderAgents: string[];
  if (scope.agentId) {
    agents = [scope.agentId];
    unknownHolderAgents = [];
  } else {
    agents = (await models.Agent.find({ claimedBy: scope.userId }, { _id: 1 }).lean()).map((a) => a._id);
    const own = await models.AgentWallet.find({ _id: { $in: agents } }, { _id: 1 }).lean();
    const withOwn = new Set(own.map((w) => w._id));
    unknownHolderAgents = agents.filter((id) => !withOwn.has(id));
  }
  return models.Position.find({
    marketId,
    venue: 'polymarket',
    ...filter,
    $or: [
      { holderAddress: { $in: await scopeHolders(models, scope) }, agentId: { $in: agents } },
      { holderAddress: null, agentId: { $in: unknownHolderAgents } },
    ],
  }).lean();
}
