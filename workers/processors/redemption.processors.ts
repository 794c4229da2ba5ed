import { enqueueAutoRedemptions } from '../../shared/domains/onchain/auto-redeem.js';
import { redeemPosition } from '../../shared/domains/onchain/redeem-position.js';
import type { Processor } from '../../shared/composition/processor.js';

export const redeemPositionProcessor: Processor<'redeem-position'> = async (data, { deps }) =>
  redeemPosition(deps, { userId: data.userId, agentId: data.agentId }, data.marketId);

export const autoRedeemProcessor: Processor<'auto-redeem'> = async (data, { deps }) =>
  enqueueAutoRedemptions(deps, data.slot);
