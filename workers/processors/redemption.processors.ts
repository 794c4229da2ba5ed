import { onchain } from '../../shared/composition/onchain.js';
import type { Processor } from '../../shared/composition/processor.js';

export const redeemPositionProcessor: Processor<'redeem-position'> = async (data, { deps }) =>
  onchain.redeemPosition(deps, { userId: data.userId, agentId: data.agentId }, data.marketId);

/** Also finishes relayed redemptions mined before their market's resolution reached the service. */
export const autoRedeemProcessor: Processor<'auto-redeem'> = async (data, { deps }) => {
  await onchain.finishRelayedRedemptions(deps);
  return onchain.enqueueAutoRedemptions(deps, data.slot);
};
