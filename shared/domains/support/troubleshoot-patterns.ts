/**
 * What the service's own error texts mean and what to do about them, for `POST /api/sdk/troubleshoot`.
 * Each pattern matches the wording the service (or a venue) really produces; a test feeds every
 * trade refusal and limit error the code can build through this table, so a reworded message that
 * no longer matches fails the build instead of silently going unexplained. Status codes are matched
 * only as whole numbers (not inside 401.23 or an id), and every pattern is linear in the text.
 */
export interface TroubleshootPattern {
  id: string;
  pattern: RegExp;
  explanation: string;
  fix: string;
  /** Where the behaviour is documented. */
  source: string;
}

export const TROUBLESHOOT_PATTERNS: readonly TroubleshootPattern[] = [
  {
    id: 'unauthorized',
    pattern: /missing or invalid authorization|(?<![\w.])401(?![\w.])|invalid api key|unauthorized/i,
    explanation: 'The request carried no API key, a malformed header, or a key this service does not know.',
    fix: 'Send `Authorization: Bearer sk_live_…` with the key from POST /api/sdk/agents/register (it is shown once; register a new agent if it is lost).',
    source: 'spec §5 Authentication',
  },
  {
    id: 'agent_not_claimed',
    pattern: /must be claimed before/i,
    explanation: 'Real venues need a human owner: the agent has not been claimed yet.',
    fix: 'Ask your human to open claim_url and claim the agent; meanwhile trade on venue "sim".',
    source: 'spec §7 (403)',
  },
  {
    id: 'agent_suspended',
    pattern: /agent is suspended|released agent/i,
    explanation: "The agent's owner released it: trading is refused, its history is kept.",
    fix: 'The owner can reactivate it with POST /api/sdk/agents/{agent_id}/reactivate (their tier must have a free slot).',
    source: 'spec §3, §7 rule 3',
  },
  {
    id: 'agent_broke',
    pattern: /balance is zero/i,
    explanation: 'The agent spent all of its $SIM; it can still sell what it holds.',
    fix: 'Sell positions to get cash back, or register a new agent to start again with 10,000 $SIM.',
    source: 'spec §7 rule 2',
  },
  {
    id: 'insufficient_balance',
    pattern: /insufficient balance|not enough balance|insufficient (funds|collateral)/i,
    explanation:
      'The buy costs more than the cash available (cash already set aside by buys in flight is not available).',
    fix: 'Buy with a smaller amount, or sell a position first; GET /api/sdk/agents/me shows the balance.',
    source: 'spec §7 rule 4',
  },
  {
    id: 'insufficient_shares',
    pattern: /insufficient shares/i,
    explanation:
      'The sell asks for more shares than the position holds on that side (shares being sold already do not count).',
    fix: 'Refresh the share count with GET /api/sdk/positions and check the side; a resolved market pays out instead of selling.',
    source: 'spec §7 rule 5',
  },
  {
    id: 'daily_limit_reached',
    pattern: /daily limit reached/i,
    explanation:
      "The owner's daily limit is used up: buys per UTC day (max_trades_per_day) or real-venue spend (sdk_daily_limit).",
    fix: 'Wait for midnight UTC (expires_at says when), sell instead (sells are not counted), or have your human raise the limit in PATCH /api/sdk/user/settings.',
    source: 'spec §7 rule 7',
  },
  {
    id: 'market_cooldown',
    pattern: /cooldown: one \w+ buy per market/i,
    explanation: 'On the free tier an agent may buy each side of a sim market once every 120 s.',
    fix: 'Wait until expires_at, or trade another market or side; GET /api/sdk/agents/{agent_id}/cooldowns lists what is blocked.',
    source: 'client-contract §4.5',
  },
  {
    id: 'failed_trade_cooldown',
    pattern: /buy on this market failed recently/i,
    explanation:
      'A buy on this market side failed at the market (price, closed market, venue error), so new buys on it wait 30 minutes.',
    fix: 'See why in GET /api/sdk/trades?include_failed=true, then try another market or side, or wait until expires_at.',
    source: 'client-contract §4.5',
  },
  {
    id: 'trading_paused',
    pattern: /trading is paused|kill switch|paused by your human/i,
    explanation: 'The kill switch (trading_paused) is on for this account: every trade is refused.',
    fix: 'PATCH /api/sdk/user/settings {"trading_paused": false}; a pause your human set can only be lifted with their token.',
    source: 'client-contract §3.3',
  },
  {
    id: 'owner_setting',
    pattern: /only your human can loosen/i,
    explanation:
      "An agent key may tighten its owner's limits but not raise them or turn real trading back on.",
    fix: 'Ask your human to change it with their user token (PATCH /api/sdk/user/settings).',
    source: 'README, settings',
  },
  {
    id: 'real_trading_disabled',
    pattern: /real trading is turned off/i,
    explanation: 'sdk_real_trading_enabled is false in the settings.',
    fix: 'Your human turns it on with PATCH /api/sdk/settings {"sdk_real_trading_enabled": true}; sim trading is unaffected.',
    source: 'client-contract §3.3',
  },
  {
    id: 'trade_amount_cap',
    pattern: /per-trade limit|per buy on sim/i,
    explanation: 'The buy is above a per-trade cap: 500 $SIM on sim, or sdk_max_trade_amount on real venues.',
    fix: 'Split the buy into smaller trades.',
    source: 'client-contract §4.5',
  },
  {
    id: 'market_not_found',
    pattern: /market not found/i,
    explanation:
      'Markets are addressed by this service’s market_id (a UUID); an external condition id or ticker is not one.',
    fix: 'Take market_id from GET /api/sdk/markets (an imported market’s id is returned by the import).',
    source: 'spec §7 rule 8',
  },
  {
    id: 'market_not_active',
    pattern: /market is (resolved|closed)|no longer trades/i,
    explanation: 'The market has resolved or closed; it takes no trades.',
    fix: 'Winning shares are paid out automatically on sim; pick an active market from GET /api/sdk/markets.',
    source: 'spec §2.2',
  },
  {
    id: 'limit_not_met',
    pattern: /limit price not met/i,
    explanation:
      'The average fill would be worse than the `price` limit; the sim book fills at once or not at all.',
    fix: 'Trade a smaller size or move the limit; a dry run (dry_run: true) shows the fill first.',
    source: 'README, sim venue',
  },
  {
    id: 'trade_too_small',
    pattern: /trade too small/i,
    explanation: 'The trade would fill less than 0.00001 shares or pay less than 0.000001 $SIM.',
    fix: 'Increase the amount or the number of shares.',
    source: 'spec §8 (trade precision)',
  },
  {
    id: 'not_tradeable_on_sim',
    pattern: /not tradeable on sim/i,
    explanation: 'A tracking market: it follows an external venue and trades there only.',
    fix: 'Pick a market with sim_tradeable: true (GET /api/sdk/markets?tradeable_only=true).',
    source: 'spec §4.1',
  },
  {
    id: 'venue_unavailable',
    pattern: /not available on this server/i,
    explanation: 'This server does not place orders on that venue yet.',
    fix: 'Trade on venue "sim".',
    source: 'README',
  },
  {
    id: 'idempotency_key_reused',
    pattern: /idempotency_key_reused/i,
    explanation:
      'The idempotency_key was first sent with a different trade; a key is bound to its first request.',
    fix: 'Use a new idempotency_key for a new trade; resend a key only with the identical request.',
    source: 'POST /api/sdk/trade (docs)',
  },
  {
    id: 'idempotency',
    pattern: /idempotency/i,
    explanation:
      'A trade with the same idempotency_key is still in flight, or the key store was briefly unavailable.',
    fix: 'Retry in a few seconds with the same idempotency_key; the first trade’s answer is replayed once it is done.',
    source: 'spec §4.2',
  },
  {
    id: 'rate_limited',
    pattern: /rate limit exceeded|too many requests|(?<![\w.])429(?![\w.])/i,
    explanation: 'A per-minute limit was hit (e.g. registration 10/min per IP, context 300/min per agent).',
    fix: 'Wait for the Retry-After header’s seconds, then retry.',
    source: 'spec §8',
  },
  {
    id: 'validation',
    pattern: /validation failed|field required|unknown field|(?<![\w.])422(?![\w.])/i,
    explanation: 'A field is missing, malformed or not allowed; detail[].loc names each one.',
    fix: 'Correct the fields listed in detail and send again (buys need amount, sells need shares; amounts have 2 decimals, shares 5).',
    source: 'spec §2.5, §7',
  },
  {
    id: 'tier_limit_reached',
    pattern: /tier_limit_reached|agent limit reached/i,
    explanation: 'The user already has as many active agents as the tier allows.',
    fix: 'Release an agent you no longer use (POST /api/sdk/agents/{agent_id}/release), or upgrade the tier.',
    source: 'spec §3',
  },
  {
    id: 'already_claimed',
    pattern: /already been used|already_claimed/i,
    explanation: 'A claim code works once; this agent has been claimed.',
    fix: 'If it is yours, it is listed in GET /api/sdk/agents.',
    source: 'spec §3',
  },
  {
    id: 'claim_code_expired',
    pattern: /claim code has expired|claim_code_expired/i,
    explanation:
      'An unclaimed agent’s claim code works for CLAIM_CODE_TTL_HOURS after it was issued (7 days by default).',
    fix: 'The agent calls POST /api/sdk/agents/me/claim-code/rotate with its API key and shares the new claim_url.',
    source: 'README (claim codes)',
  },
  {
    id: 'timeout',
    pattern: /timed? ?out|submitted/i,
    explanation: 'The trade was accepted but did not finish before the wait deadline; it carries on.',
    fix: 'Read its outcome with GET /api/sdk/trades (trade_id); resend only with the same idempotency_key.',
    source: 'spec §7 rule 6',
  },
  {
    id: 'kyc_required',
    pattern: /KYC_REQUIRED/,
    explanation: 'The venue has not verified the wallet.',
    fix: 'Complete the venue’s identity verification for this wallet.',
    source: 'spec §7 rule 10',
  },
  {
    id: 'signature_verification',
    pattern: /did not pass signature verification/i,
    explanation: 'The client library is outdated.',
    fix: 'Upgrade the client SDK and sign again.',
    source: 'spec §7 rule 10',
  },
  {
    id: 'invalid_account_owner',
    pattern: /invalid account owner/i,
    explanation: 'The wallet has no stablecoin token account.',
    fix: 'Create the stablecoin token account for the wallet (fund it once).',
    source: 'spec §7 rule 10',
  },
  {
    id: 'quote_expired',
    pattern: /quote expired or not found/i,
    explanation: 'Venue quotes are valid for 5 minutes.',
    fix: 'Request a new quote and trade within 5 minutes.',
    source: 'spec §7 rule 10',
  },
  {
    id: 'no_solana_wallet',
    pattern: /no solana wallet linked/i,
    explanation: 'No Solana wallet is registered for this account.',
    fix: 'PATCH /api/sdk/user/settings {"bot_solana_wallet": "<base58 public key>"}.',
    source: 'spec §7 rule 10',
  },
  {
    id: 'wallet_mismatch',
    pattern: /wallet address does not match/i,
    explanation: 'The request’s wallet differs from the one registered.',
    fix: 'Use the registered wallet (solana_wallet_address in GET /api/sdk/user/settings), or register the new one.',
    source: 'spec §7 rule 10',
  },
];
