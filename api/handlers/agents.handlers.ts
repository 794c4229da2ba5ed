import { agentMeView } from '../../shared/domains/agents/agent-views.js';
import { claimInfo, claimPageData } from '../../shared/domains/reads/claim-page.js';
import { registerAgent } from '../../shared/domains/agents/register-agent.js';
import { rotateClaimCode } from '../../shared/domains/agents/rotate-claim-code.js';
import { updateAgentSettings } from '../../shared/domains/agents/update-agent-settings.js';
import { loadGuard } from '../../shared/domains/limits/trade-guard.js';
import { realTradingEnabled } from '../../shared/domains/limits/trading-settings.js';
import { claimUrlFor } from '../../shared/domains/trading/context.js';
import { venuePnlsMicro } from '../../shared/domains/trading/reads.js';
import { perAgentWalletFieldsOf, walletFields } from '../../shared/domains/wallets/wallet-view.js';
import type { Deps } from '../../shared/composition/deps.js';
import { publicBaseUrl, type Env } from '../../shared/infra/config/env.js';
import type { agentEndpoints } from '../endpoints/agents.endpoints.js';
import type { HandlersFor } from '../endpoints/endpoint.js';
import { claimPage } from '../web/pages/claim.page.js';

const claimUrlOf = (env: Env) => claimUrlFor(publicBaseUrl(env));
const claimClock = (deps: Deps) => ({ ttlHours: deps.env.CLAIM_CODE_TTL_HOURS, now: deps.clock() });

export const agentHandlers: HandlersFor<typeof agentEndpoints> = {
  registerAgent: async ({ deps, body, req }) =>
    registerAgent(deps.models.Agent, body, {
      claimUrlFor: claimUrlOf(deps.env),
      now: deps.clock(),
      clientIp: req.ip,
    }),

  getMe: async ({ deps, agent, query }) => {
    const include = new Set((query.include ?? '').split(',').map((s) => s.trim().toLowerCase()));
    const includePnl = include.has('pnl');
    const { owner, settings } = await loadGuard(deps, agent);
    const [wallet, own, venuePnlMicro] = await Promise.all([
      walletFields(deps, owner),
      deps.models.AgentWallet.findById(agent._id, { address: 1 }).lean(),
      includePnl ? venuePnlsMicro(deps.models, agent._id) : undefined,
    ]);
    return agentMeView(agent, {
      includePnl,
      venuePnlMicro,
      claimUrl: claimUrlOf(deps.env)(agent.claimCode),
      tier: owner.tier,
      importsPerDay: deps.env.TIER_IMPORTS_PER_DAY[owner.tier],
      realTradingEnabled: realTradingEnabled(owner, settings) && agent.status !== 'suspended',
      wallet,
      perAgentWallet: perAgentWalletFieldsOf(own, wallet),
    });
  },

  updateMySettings: async ({ deps, agent, body }) =>
    updateAgentSettings(deps.models.Agent, deps.invalidation, agent._id, body, deps.clock()),

  getClaimInfo: async ({ deps, params }) => claimInfo(deps.models, params.claim_code, claimClock(deps)),

  claimPage: async ({ deps, params }) =>
    claimPage(await claimPageData(deps.models, params.claim_code, claimClock(deps)), publicBaseUrl(deps.env)),

  rotateClaimCode: async ({ deps, agent }) =>
    rotateClaimCode(deps.models.Agent, deps.invalidation, agent._id, {
      ...claimClock(deps),
      claimUrlFor: claimUrlOf(deps.env),
    }),
};
