import type { Express, RequestHandler } from 'express';
import type { Deps } from '../shared/composition/deps.js';
import { closestMatch } from '../shared/util/closest-match.js';
import {
  expressPath,
  type EndpointSpec,
  type Handler,
  type HandlersFor,
  type RateLimitName,
} from './endpoints/endpoint.js';
import { ENDPOINTS, type EndpointName } from './endpoints/index.js';
import { adminHandlers } from './handlers/admin.handlers.js';
import { agentHandlers } from './handlers/agents.handlers.js';
import { marketHandlers } from './handlers/markets.handlers.js';
import { opportunityHandlers } from './handlers/opportunities.handlers.js';
import { leaderboardHandlers } from './handlers/leaderboard.handlers.js';
import { readHandlers } from './handlers/reads.handlers.js';
import { tradingHandlers } from './handlers/trading.handlers.js';
import { copytradingHandlers } from './handlers/copytrading.handlers.js';
import { copyLeaderHandlers } from './handlers/copy-leaders.handlers.js';
import { userHandlers } from './handlers/users.handlers.js';
import { supportHandlers } from './handlers/support.handlers.js';
import { skillHandlers } from './handlers/skills.handlers.js';
import { automatonHandlers } from './handlers/automaton.handlers.js';
import { limitsHandlers } from './handlers/limits.handlers.js';
import { walletHandlers } from './handlers/wallet.handlers.js';
import { broadcastHandlers } from './handlers/broadcast.handlers.js';
import { depositWalletHandlers } from './handlers/deposit-wallet.handlers.js';
import { onchainHandlers } from './handlers/onchain.handlers.js';
import { agentWalletHandlers } from './handlers/agent-wallets.handlers.js';
import { kalshiHandlers } from './handlers/kalshi.handlers.js';
import { webhookHandlers } from './handlers/webhooks.handlers.js';
import { alertHandlers } from './handlers/alerts.handlers.js';
import { monitorHandlers } from './handlers/monitors.handlers.js';
import { tapeHandlers } from './handlers/tapes.handlers.js';
import { candleHandlers } from './handlers/candles.handlers.js';
import { researchHandlers } from './handlers/research.handlers.js';
import { reactorStreamHandlers } from './handlers/reactor-stream.handlers.js';
import { reactorHandlers } from './handlers/reactor.handlers.js';

import { systemHandlers } from './handlers/system.handlers.js';
import { optionalAgent, requireAgent } from './http/agent-auth.js';
import { limitReleasedAgent } from './http/released-agent.js';
import { skipPathWords, skipsPathWords } from './http/path-words.js';
import { optionalOperator, requireOperator } from './http/operator-auth.js';
import { refuseCrossOriginRequests } from './http/cross-origin.js';
import type { OperatorLockout } from '../shared/infra/operator-lockout.js';
import { requireAgentOrUser, requireUser } from './http/user-auth.js';
import { createJwtVerifier } from '../shared/infra/jwt.js';

import { JsonText } from './http/json-text.js';
import { jsonBody } from './http/json-body.js';
import { parseRequestPart } from './http/validation.js';

/** Exhaustive: an endpoint without a handler fails to compile. */
const HANDLERS: HandlersFor<typeof ENDPOINTS> = {
  ...agentHandlers,
  ...userHandlers,
  ...limitsHandlers,
  ...supportHandlers,
  ...skillHandlers,
  ...automatonHandlers,
  ...walletHandlers,
  ...broadcastHandlers,
  ...depositWalletHandlers,
  ...onchainHandlers,
  ...agentWalletHandlers,
  ...webhookHandlers,
  ...alertHandlers,
  ...monitorHandlers,
  ...tapeHandlers,
  ...candleHandlers,
  ...researchHandlers,
  ...reactorStreamHandlers,
  ...reactorHandlers,

  ...opportunityHandlers,
  ...marketHandlers,
  ...tradingHandlers,
  ...copytradingHandlers,
  ...copyLeaderHandlers,
  ...kalshiHandlers,
  ...readHandlers,
  ...leaderboardHandlers,
  ...adminHandlers,
  ...systemHandlers,
};

/** Unknown query parameters are not errors (spec §4.1 rule 3): the response names the valid ones. */
function unknownParamWarning(spec: EndpointSpec, query: Record<string, unknown>): string | undefined {
  const known = Object.keys(spec.query?.shape ?? {});
  const unknown = Object.keys(query).filter((k) => !known.includes(k));
  if (!unknown.length) return undefined;
  const parts = unknown.map((k) => {
    const suggestion = closestMatch(k, known);
    return suggestion ? `'${k}' (did you mean '${suggestion}'?)` : `'${k}'`;
  });
  return `Unknown query parameter(s) ignored: ${parts.join(', ')}. Valid parameters: ${known.length ? known.join(', ') : 'none'}.`;
}

export function registerEndpoints(
  app: Express,
  deps: Deps,
  opts: { lockout: OperatorLockout; rateLimits: Record<RateLimitName, RequestHandler> },
): void {
  const cachedAgentAuth = requireAgent(deps);
  const freshAgentAuth = requireAgent(deps, { fresh: true });
  const operatorAuth = requireOperator(opts.lockout);
  const optionalOperatorAuth = optionalOperator(opts.lockout);
  const userAuth = requireUser(deps, createJwtVerifier(deps.env));

  const bodyParser = jsonBody(deps.env.REQUEST_BODY_LIMIT);
  for (const [name, spec] of Object.entries(ENDPOINTS) as [EndpointName, EndpointSpec][]) {
    const handler = HANDLERS[name] as unknown as Handler<EndpointSpec>;
    const chain: RequestHandler[] = [];
    if (skipsPathWords(spec)) chain.push(skipPathWords);
    const agentAuth = spec.freshAgent ? freshAgentAuth : cachedAgentAuth;
    if (spec.auth === 'agent') chain.push(agentAuth);
    // Browsers send HTTP Basic by themselves once it was typed for the host: another site must not
    // make an operator request through it, a write or a read that acts (api/http/cross-origin.ts).
    if (spec.auth === 'operator') chain.push(refuseCrossOriginRequests, operatorAuth);
    if (spec.auth === 'operator-optional') chain.push(optionalOperatorAuth);
    if (spec.auth === 'user') chain.push(userAuth);
    if (spec.auth === 'agent-or-user') chain.push(requireAgentOrUser(agentAuth, userAuth));
    if (spec.auth === 'agent-optional') chain.push(optionalAgent(agentAuth));
    if (spec.auth.startsWith('agent')) chain.push(limitReleasedAgent(spec));

    // After auth, so that per-agent limits know the agent (per-IP limits work either way).
    if (spec.rateLimit) chain.push(opts.rateLimits[spec.rateLimit]);
    if (spec.body) chain.push(...bodyParser);
    chain.push(async (req, res) => {
      const query = (req.query ?? {}) as Record<string, unknown>;
      const input = {
        params: spec.params ? parseRequestPart(spec.params, req.params, 'path') : undefined,
        query: spec.query ? parseRequestPart(spec.query, query, 'query') : undefined,
        body: spec.body ? parseRequestPart(spec.body, req.body, 'body') : undefined,
        agent: req.agent,
        user: req.user,

        deps,
        req,
        res,
      };
      const output = await handler(input as Parameters<typeof handler>[0]);
      // A handler that streamed its body (a file download) has answered already.
      if (res.headersSent) return;
      if (spec.status) res.status(spec.status);
      if (spec.produces) {
        if (!res.getHeader('content-type')) res.type(spec.produces);
        res.send(output);
        return;
      }
      const warning = unknownParamWarning(spec, query);
      if (output instanceof JsonText) {
        res.type('application/json').send(output.body(warning));
        return;
      }
      if (warning && output && typeof output === 'object' && !Array.isArray(output)) {
        const own = (output as { warning?: string }).warning;
        res.json({ ...output, warning: own ? `${warning} ${own}` : warning });
        return;
      }
      res.json(output);
    });
    app[spec.method](expressPath(spec.path), ...chain);
  }
}
