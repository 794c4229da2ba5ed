import { createHash, randomUUID } from 'node:crypto';
import { fromMicro, STARTING_BALANCE_MICRO } from '../money.js';
import { DEFAULT_TRADING_SETTINGS } from '../limits/trading-settings.model.js';
import type { AgentModel } from './agent.model.js';
import { nameSkeleton } from './agent-name.js';
import type { RegisterAgentRequest } from './agent.schemas.js';
import { generateApiKey, hashApiKey, keyPrefixOf } from './api-key.js';
import { generateClaimCode } from './claim-code.js';
import { isDuplicateKey } from '../refusal.js';

/** Paper-trading caps an unclaimed agent starts with (client-contract §3.1). */
export const DEFAULT_AGENT_LIMITS = {
  sim: true,
  real_trading: false,
  max_trade_usd: fromMicro(DEFAULT_TRADING_SETTINGS.sdkMaxTradeMicro),
  daily_limit_usd: fromMicro(DEFAULT_TRADING_SETTINGS.sdkDailyLimitMicro),
};

/**
 * What the agent keeps of the address it registered from: a digest, enough to link agents of one
 * address on the leaderboards (reads/linked-agents.ts) without storing the address itself. Loopback
 * links nobody: it is every local client of `npm start`, or a proxy whose TRUST_PROXY is not set.
 */
function registrationAddress(ip: string | undefined): string | null {
  if (!ip || /^(?:::ffff:)?127\.|^::1$/.test(ip)) return null;
  return createHash('sha256').update(`agent-registration:${ip}`).digest('base64url').slice(0, 22);
}

export async function registerAgent(
  Agent: AgentModel,
  input: RegisterAgentRequest,
  opts: { claimUrlFor: (code: string) => string; now: Date; clientIp: string | undefined },
) {
  const apiKey = generateApiKey();
  const agentId = randomUUID();
  // A claim code collision is all but impossible (89 random bits); were one drawn, draw again rather than fail.
  for (let attempt = 1; ; attempt++) {
    const claimCode = generateClaimCode();
    try {
      await Agent.create({
        _id: agentId,
        name: input.name,
        nameKey: nameSkeleton(input.name),
        nameTakenAt: opts.now,
        description: input.description ?? null,
        homepage: input.homepage ?? null,
        skillUrl: input.skill_url ?? null,
        apiKeyHash: hashApiKey(apiKey),
        keyPrefix: keyPrefixOf(apiKey),
        claimCode,
        claimCodeIssuedAt: opts.now,
        registeredFrom: registrationAddress(opts.clientIp),
        status: 'unclaimed',
        skillSlugs: [],
      });
      return {
        agent_id: agentId,
        api_key: apiKey,
        key_prefix: keyPrefixOf(apiKey),
        claim_code: claimCode,
        claim_url: opts.claimUrlFor(claimCode),
        status: 'unclaimed' as const,
        starting_balance: fromMicro(STARTING_BALANCE_MICRO),
        limits: { ...DEFAULT_AGENT_LIMITS },
      };
    } catch (err) {
      if (!isDuplicateKey(err) || attempt >= 5) throw err;
    }
  }
}
