import { broadcastTx, listBroadcasts } from '../../shared/domains/onchain/broadcast-tx.js';
import { prepareDepositWalletRedeem, redeem, reportRedemption } from '../../shared/domains/onchain/redeem.js';
import type { HandlersFor } from '../endpoints/endpoint.js';
import type { broadcastEndpoints } from '../endpoints/broadcast.endpoints.js';
import { walletAccountOf } from './wallet-caller.js';

export const broadcastHandlers: HandlersFor<typeof broadcastEndpoints> = {
  broadcastTx: async (input) =>
    broadcastTx(input.deps, await walletAccountOf(input), input.agent._id, input.body.signed_tx),
  listBroadcasts: async (input) =>
    listBroadcasts(input.deps, await walletAccountOf(input), input.query.limit),
  redeem: async (input) => redeem(input.deps, await walletAccountOf(input), input.agent._id, input.body),
  reportRedemption: async (input) =>
    reportRedemption(input.deps, await walletAccountOf(input), input.agent._id, input.body),
  prepareDepositWalletRedeem: async (input) =>
    prepareDepositWalletRedeem(input.deps, await walletAccountOf(input), input.agent._id, input.body),
};
