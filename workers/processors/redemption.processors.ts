import { onchain } from '../../shared/composition/onchain.js';
import type { Processor } from '../../shared/composition/processor.js';

export const redeemPositionProcessor: Processor<'redeem-position'> = async (data, { deps }) =>
  onchain.redeemPosition(deps, { userId: data.userId, agentId: data.agentId }, data.marketId);

export const autoRedeemProcessor: Processor<'auto-redeem'> = async (data, { deps }) =>
  onchain.enqueueAutoRedemptions(deps, data.slot);
