import type { Refusal } from '../../../refusal.js';

/**
 * What a CLOB refusal means for the agent (polymarket.md §5.2 messages), worded for the official
 * client's classifier (client-contract §1.5: "insufficient balance", "credentials", "not filled",
 * "liquidity" are the words it buckets on) and with the fix.
 */
const RULES: { match: RegExp; refusal: Omit<Refusal, 'error'> & { error?: string } }[] = [
  {
    match: /not enough balance|allowance/i,
    refusal: {
      errorCode: 'insufficient_balance',
      error:
        'Polymarket refused the order: insufficient balance or allowance of the wallet (not enough balance / allowance).',
      retryable: false,
      hint: 'Fund the wallet with pUSD (or hold the shares you sell) and set the exchange approvals (GET /api/polymarket/allowances/{address}).',
      category: 'balance',
    },
  },
  {
    match: /unauthorized|invalid api key|api key/i,
    refusal: {
      errorCode: 'credentials_invalid',
      error:
        'Polymarket refused the CLOB API credentials registered for this wallet (Unauthorized/Invalid api key).',
      retryable: false,
      hint: 'Derive them again with your wallet and register them: POST /api/sdk/wallet/credentials.',
      category: 'venue',
    },
  },
  {
    match: /FOK orders are fully filled|no orders found to match|FAK orders|couldn't be fully filled/i,
    refusal: {
      errorCode: 'no_liquidity',
      error: 'The order was not filled: not enough liquidity on the book at this price.',
      retryable: true,
      hint: 'Retry with a smaller size or a worse limit price, or rest a GTC order.',
      category: 'price',
    },
  },
  {
    match: /minimum tick size/i,
    refusal: {
      errorCode: 'invalid_price',
      retryable: false,
      hint: 'Use a price on the market tick grid (GET /api/sdk/markets/{id} tick_size).',
      category: 'price',
    },
  },
  {
    match: /lower than the minimum/i,
    refusal: {
      errorCode: 'order_too_small',
      retryable: false,
      hint: 'Send at least the market minimum order size (usually 5 shares).',
      category: 'venue',
    },
  },
  {
    match: /order_version_mismatch/i,
    refusal: {
      errorCode: 'order_version_mismatch',
      retryable: false,
      hint: 'Sign a V2 order (py-clob-client-v2 or @polymarket/clob-client-v2).',
      category: 'venue',
    },
  },
  {
    match: /deposit wallet flow/i,
    refusal: {
      errorCode: 'deposit_wallet_required',
      retryable: false,
      hint: 'This Polymarket account trades through a deposit wallet: link it with signature_type 3.',
      category: 'venue',
    },
  },
  {
    match: /not yet ready|cancel-only|trading is currently disabled/i,
    refusal: {
      errorCode: 'market_not_ready',
      retryable: true,
      hint: 'The venue is not taking new orders on this market right now; retry later.',
      category: 'market',
    },
  },
  {
    match: /invalid signature|signer address/i,
    refusal: {
      errorCode: 'invalid_signature',
      retryable: false,
      hint: 'Sign with the wallet linked to this account, for this market’s exchange.',
      category: 'venue',
    },
  },
];

/** The refusal for a CLOB error text (the `errorMsg`, or the HTTP error's message). */
export function clobRefusal(text: string): Refusal {
  const rule = RULES.find((r) => r.match.test(text));
  const detail = text.replace(/^HTTP \d+:\s*/, '');
  if (!rule)
    return {
      error: `Polymarket rejected the order: ${detail}`,
      errorCode: 'order_rejected',
      retryable: false,
      hint: 'Check the order against the market (tick size, minimum size, side) and send it again.',
      category: 'venue',
    };
  return { ...rule.refusal, error: rule.refusal.error ?? `Polymarket rejected the order: ${detail}` };
}
