import { z } from 'zod';
import {
  SignedQuoteRequestSchema,
  SignedQuoteResultSchema,
  SignedSubmitRequestSchema,
} from '../../shared/domains/trading/signed-order.schemas.js';
import { TradeResultSchema } from '../../shared/domains/trading/trade.schemas.js';
import { WalletChallengeResponseSchema } from '../../shared/domains/wallets/wallet.schemas.js';
import { endpoint } from './endpoint.js';

const SolanaAddress = z.string().trim().min(32).max(44);

export const kalshiEndpoints = {
  kalshiQuote: endpoint({
    method: 'post',
    path: '/api/sdk/trade/kalshi/quote',
    auth: 'agent',
    tag: 'Trading',
    summary:
      'Kalshi: an unsigned Solana transaction (DFlow order) for your wallet to sign, and its quote_id (5 minutes)',
    description:
      'Needs a claimed agent, real trading on and a registered Solana wallet (`bot_solana_wallet`); buys also need the wallet verified by DFlow Proof (`KYC_REQUIRED` otherwise) and a USDC token account. ' +
      '`amount` is USDC (buys), `shares` contracts (sells). Refusals are HTTP 200 `{success: false, error, error_code, fix}`. A wallet registered without proof of ownership gets a `hint` on how to prove it.',
    body: SignedQuoteRequestSchema,
    response: SignedQuoteResultSchema,
    errors: [403, 503],
  }),
  kalshiSubmit: endpoint({
    method: 'post',
    path: '/api/sdk/trade/kalshi/submit',
    auth: 'agent',
    tag: 'Trading',
    summary:
      'Kalshi: submit the quoted transaction signed by your wallet; relayed to Solana and followed to its fill',
    description:
      'The transaction must be the quoted one (same message bytes), signed by the registered wallet, within the quote’s 5 minutes. The account safeguards (kill switch, caps, daily spend, cooldowns) apply. ' +
      'Answers TradeResult keys (`shares_bought`/`shares_sold`, `cost`, `new_price`, `trade_id`); an order still filling answers `fill_status: "submitted"` and is followed until it closes. Submitting the same signed transaction again answers the same trade.',
    body: SignedSubmitRequestSchema,
    response: TradeResultSchema,
    errors: [403, 503],
  }),
  solanaWalletChallenge: endpoint({
    method: 'get',
    path: '/api/sdk/wallet/solana/challenge',
    auth: 'agent-or-user',
    tag: 'Wallet',
    summary:
      'A single-use message for your Solana wallet to sign (ed25519) to prove you own it; valid 5 minutes',
    description: 'With an agent key this acts on the agent’s owner. 5 per hour per account.',
    query: z.object({ address: SolanaAddress }),
    response: WalletChallengeResponseSchema,
    errors: [429],
    rateLimit: 'wallet-challenge',
  }),
  solanaWalletVerify: endpoint({
    method: 'post',
    path: '/api/sdk/wallet/solana/verify',
    auth: 'agent-or-user',
    tag: 'Wallet',
    summary: 'Register a Solana wallet with proof: the challenge signed by it (base58 or base64 signature)',
    description:
      'The proven wallet becomes the account’s `solana_wallet_address`. 3 attempts per day per account.',
    body: z
      .object({
        address: SolanaAddress,
        signature: z.string().min(40).max(200),
        nonce: z.string().min(1).max(100),
      })
      .meta({ id: 'SolanaWalletVerifyRequest' }),
    response: z
      .object({
        success: z.literal(true),
        solana_wallet_address: z.string(),
        ownership_verified: z.boolean(),
        message: z.string(),
      })
      .meta({ id: 'SolanaWalletVerifyResponse' }),
    errors: [429],
    rateLimit: 'wallet-link',
  }),
  proofStatus: endpoint({
    method: 'get',
    path: '/api/proof/status',
    auth: 'agent-optional',
    tag: 'Wallet',
    summary: 'DFlow Proof (KYC) status of a Solana wallet; Kalshi buys need verified: true',
    query: z.object({ wallet: SolanaAddress }),
    response: z
      .object({ wallet: z.string(), verified: z.boolean(), verify_url: z.string() })
      .meta({ id: 'ProofStatus' }),
    errors: [503],
  }),
};
