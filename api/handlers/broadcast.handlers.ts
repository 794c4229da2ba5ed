import { onchain } from '../../shared/composition/onchain.js';
import type { HandlersFor } from '../endpoints/endpoint.js';
import type { broadcastEndpoints } from '../endpoints/broadcast.endpoints.js';
import { walletAccountOf } from './wallet-caller.js';

export const broadcastHandlers: HandlersFor<typeof broadcastEndpoints> = {
  broadcastTx: async (input) =>
    onchain.broadcastTx(input.deps, await walletAccountOf(input), input.agent._id, input.body.signed_tx),
  listBroadcasts: async (input) =>
    onchain.listBroadcasts(input.deps, await walletAccountOf(input), input.query.limit),
  redeem: async (input) =>
    onchain.redeem(input.deps, await walletAccountOf(input), input.agent._id, input.body),
  reportRedemption: async (input) =>
    onchain.reportRedemption(input.deps, await walletAccountOf(input), input.agent._id, input.body),
  prepareDepositWalletRedeem: async (input) =>
    onchain.prepareDepositWalletRedeem(input.deps, await walletAccountOf(input), input.agent._id, input.body),
  submitDepositWalletRedeem: async (input) =>
    onchain.submitDepositWalletRedeem(input.deps, await walletAccountOf(input), input.agent._id, input.body),
};
