import { onchain } from '../../shared/composition/onchain.js';
import { clobCredentials } from '../../shared/composition/clob-credentials.js';
import { requestManagedWallet } from '../../shared/domains/wallets/managed-wallet.js';
import { walletUserOf } from '../../shared/domains/wallets/wallet-account.js';
import { walletAccountOf } from './wallet-caller.js';
import { linkWallet, unlinkWallet, walletLinkChallenge } from '../../shared/domains/wallets/wallet-link.js';
import type { HandlersFor } from '../endpoints/endpoint.js';
import type { walletEndpoints } from '../endpoints/wallet.endpoints.js';

export const walletHandlers: HandlersFor<typeof walletEndpoints> = {
  walletLinkChallenge: async (input) =>
    walletLinkChallenge(input.deps, await walletAccountOf(input), input.query.address),
  linkWallet: async (input) =>
    linkWallet(input.deps, await walletAccountOf(input), input.body, onchain.depositWalletAddress),
  unlinkWallet: async (input) => unlinkWallet(input.deps, await walletAccountOf(input)),
  createManagedWallet: async (input) =>
    requestManagedWallet(input.deps, walletUserOf(await walletAccountOf(input))),
  checkClobCredentials: async (input) => clobCredentials.check(input.deps, await walletAccountOf(input)),
  storeClobCredentials: async (input) =>
    clobCredentials.store(input.deps, await walletAccountOf(input), input.body),
  deriveClobCredentialsViaProxy: async (input) =>
    clobCredentials.deriveViaProxy(input.deps, await walletAccountOf(input), input.body),
};
