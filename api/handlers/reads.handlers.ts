import { sdkUpdate as sdkUpdateFor } from '../../shared/domains/system/version-check.js';
import { briefing, newMarketsSince } from '../../shared/domains/reads/briefing.js';
import { installedSkills, skillUpdates } from '../../shared/domains/skills/skills.js';
import { agentWalletCash } from '../../shared/domains/trading/wallet-cash.js';
import { cachedRead } from '../../shared/infra/read-cache.js';

import { skillOutcomes } from '../../shared/domains/reads/skill-outcomes.js';
import { expiringPositions } from '../../shared/domains/positions/expiring.js';
import { walletPositions } from '../../shared/domains/reads/wallet-positions.js';
import { marketContext } from '../../shared/domains/reads/context.js';
import { claimUrlFor } from '../../shared/domains/trading/context.js';
import { publicBaseUrl } from '../../shared/infra/config/env.js';
import type { HandlersFor } from '../endpoints/endpoint.js';
import type { readEndpoints } from '../endpoints/reads.endpoints.js';

export const readHandlers: HandlersFor<typeof readEndpoints> = {
  walletPositions: async ({ deps, params }) => walletPositions(deps, params.wallet_address),
  context: async ({ deps, agent, params, query }) => {
    const baseUrl = publicBaseUrl(deps.env);
    return marketContext(deps.models, agent, params.market_id, {
      venue: query.venue,
      myProbability: query.my_probability,
      baseUrl,
      claimUrl: agent.claimedBy ? null : claimUrlFor(baseUrl)(agent.claimCode),
      now: deps.clock(),
    });
  },
  briefing: async ({ deps, agent, query, req }) => {
    const now = deps.clock();
    const since = query.since ? new Date(query.since) : new Date(now.getTime() - 24 * 3600_000);
    const baseUrl = publicBaseUrl(deps.env);
    // New markets are the same for every agent asking about the same minute: share them.
    const newMarkets = (from: Date) => {
      const minute = new Date(Math.floor(from.getTime() / 60_000) * 60_000);
      const compute = () => newMarketsSince(deps.models, minute, baseUrl, now);
      return deps.env.READ_CACHE_SECONDS > 0
        ? cachedRead(
            deps.redis,
            deps.env.QUEUE_PREFIX,
            'new-markets',
            { minute },
            deps.env.READ_CACHE_SECONDS,
            compute,
          )
        : compute();
    };
    const sdkUpdate = sdkUpdateFor(deps.env, req.get('user-agent'));
    const [cash, updates] = await Promise.all([
      agentWalletCash(deps, agent),
      skillUpdates(deps.models, installedSkills(query.skill_versions)),
    ]);
    return briefing(deps.models, agent, {
      since,
      now,
      baseUrl,
      newMarkets,
      sdkUpdate,
      cash,
      skillUpdates: updates,
    });
  },
  outcomes: async ({ deps, agent, query }) =>
    skillOutcomes(deps.models, agent._id, query.skill, query.since ? new Date(query.since) : null),
  expiringPositions: async ({ deps, agent, query }) =>
    expiringPositions(deps.models, agent, query.hours, deps.clock()),
};
