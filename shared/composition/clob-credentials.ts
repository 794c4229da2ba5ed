import { updateAgentWalletCreds } from '../domains/venues/polymarket/agent-wallet-credentials.js';
import {
  checkClobCredentials,
  deriveClobCredentialsViaProxy,
  storeClobCredentials,
} from '../domains/venues/polymarket/clob-credentials.js';

/**
 * The Polymarket CLOB's L2 credentials of a user's wallet and of an agent's own wallet: whether they
 * are stored, stored as the client sends them, or derived through the CLOB with the client's L1
 * signature. The API's wallet endpoints reach them here, never through the venue's folder.
 */
export const clobCredentials = {
  check: checkClobCredentials,
  store: storeClobCredentials,
  deriveViaProxy: deriveClobCredentialsViaProxy,
  updateAgentWallet: updateAgentWalletCreds,
};
