import {
  CopytradingRequestSchema,
  CopytradingResultSchema,
  MAX_COPIED_WALLETS,
} from '../../shared/domains/copytrading/copytrading.schemas.js';
import { MAX_IMPORTS_PER_PLAN } from '../../shared/domains/copytrading/copy-targets.js';
import { endpoint } from './endpoint.js';

export const copytradingEndpoints = {
  copytradingExecute: endpoint({
    method: 'post',
    path: '/api/sdk/copytrading/execute',
    auth: 'agent',
    freshAgent: true,
    tag: 'Trading',
    summary: 'Copy wallets: the trades that bring your positions in line with theirs (plan, or execute)',
    description:
      `Reads each wallet's public positions on the venue that publishes them (at most ${MAX_COPIED_WALLETS} wallets, each cached COPYTRADING_POSITIONS_CACHE_SECONDS), ` +
      'keeps what they agree on (dust under $1 and redeemable positions left out; markets where they hold opposite outcomes skipped as `conflicts_skipped`; outcomes priced below 0.1 or above 0.9 skipped), ' +
      'ranks markets by conviction (the value they hold, halved when only one wallet holds it) and copies the first `top_n` (absent: 5, 10, 25 or 50 by your balance on `venue`). ' +
      'Each copied market’s target is `max_usd_per_position` × conviction tier × its value against the largest copied one; the trades are the differences from your open position on `venue` (`sim`, or the wallets’ own venue): buys of at least $1, and unless `buy_only` sales of what is over target or on the other outcome. ' +
      '`detect_whale_exits` sells your copies of markets none of the wallets holds any more: positions bought by a trade with source `sdk:copytrading…` whose `signal_data.whale_wallet` names one of them (its first 10 characters suffice). ' +
      `Markets missing here are imported on the spot (at most ${MAX_IMPORTS_PER_PLAN} per call, each one of your daily imports). ` +
      'Each trade is priced by a dry run of POST /api/sdk/trade (a trade the dry run refuses is left out and told in `errors`); `max_trades` keeps the first ones (sales first). ' +
      '`dry_run: false` then places each through the trade path (source `sdk:copytrading`, an idempotency key derived from the plan and your holding, so a retried call replays instead of trading twice) and marks its `success`, `trade_id`, `error`. ' +
      '10 requests per minute per agent.',
    body: CopytradingRequestSchema,
    response: CopytradingResultSchema,
    errors: [403, 429, 503],
    rateLimit: 'copytrading',
  }),
};
