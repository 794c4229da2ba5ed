import { adminEndpoints } from './admin.endpoints.js';
import { agentEndpoints } from './agents.endpoints.js';
import { leaderboardEndpoints } from './leaderboard.endpoints.js';
import { marketEndpoints } from './markets.endpoints.js';
import { opportunityEndpoints } from './opportunities.endpoints.js';
import { readEndpoints } from './reads.endpoints.js';
import { systemEndpoints } from './system.endpoints.js';
import { tradingEndpoints } from './trading.endpoints.js';
import { userEndpoints } from './users.endpoints.js';
import { limitsEndpoints } from './limits.endpoints.js';
import { supportEndpoints } from './support.endpoints.js';
import { skillEndpoints } from './skills.endpoints.js';
import { walletEndpoints } from './wallet.endpoints.js';
import { broadcastEndpoints } from './broadcast.endpoints.js';
import { depositWalletEndpoints } from './deposit-wallet.endpoints.js';
import { onchainEndpoints } from './onchain.endpoints.js';
import { agentWalletEndpoints } from './agent-wallets.endpoints.js';
import { kalshiEndpoints } from './kalshi.endpoints.js';
import { webhookEndpoints } from './webhooks.endpoints.js';
import { alertEndpoints } from './alerts.endpoints.js';
import { monitorEndpoints } from './monitors.endpoints.js';
import { tapeEndpoints } from './tapes.endpoints.js';
import { candleEndpoints } from './candles.endpoints.js';
import { researchEndpoints } from './research.endpoints.js';
import { automatonEndpoints } from './automaton.endpoints.js';
import { copytradingEndpoints } from './copytrading.endpoints.js';
import { copyLeaderEndpoints } from './copy-leaders.endpoints.js';
import { reactorStreamEndpoints } from './reactor-stream.endpoints.js';
import { reactorEndpoints } from './reactor.endpoints.js';

/** The whole HTTP contract: one table per domain, merged. */
export const ENDPOINTS = {
  ...agentEndpoints,
  ...userEndpoints,
  ...limitsEndpoints,
  ...supportEndpoints,
  ...skillEndpoints,
  ...walletEndpoints,
  ...broadcastEndpoints,
  ...depositWalletEndpoints,
  ...onchainEndpoints,
  ...agentWalletEndpoints,
  ...webhookEndpoints,
  ...alertEndpoints,
  ...monitorEndpoints,
  ...tapeEndpoints,
  ...candleEndpoints,
  ...researchEndpoints,
  ...automatonEndpoints,
  ...reactorStreamEndpoints,
  ...reactorEndpoints,

  ...opportunityEndpoints,
  ...marketEndpoints,
  ...tradingEndpoints,
  ...copytradingEndpoints,
  ...copyLeaderEndpoints,
  ...kalshiEndpoints,
  ...readEndpoints,
  ...leaderboardEndpoints,
  ...adminEndpoints,
  ...systemEndpoints,
};
export type EndpointName = keyof typeof ENDPOINTS;
