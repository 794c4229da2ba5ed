import {
  AgentIdParamsSchema,
  DwApprovalsPrepareRequestSchema,
  DwApprovalsPrepareResponseSchema,
  DwSubmitRequestSchema,
  DwSubmitResponseSchema,
  DwUpgradeResponseSchema,
  DwWrapPrepareResponseSchema,
  DwWrapSubmitRequestSchema,
} from '../../shared/domains/wallets/deposit-wallet.schemas.js';
import { endpoint } from './endpoint.js';

const ACCOUNT =
  'The deposit wallet belongs to the human’s linked external EOA: an agent API key acts on its owner’s, a user JWT on the user’s own. An unclaimed agent gets 403 `agent_not_claimed` with `claim_url`. The POSTs without a body accept `Content-Type: application/json` with no body.';
const BATCH =
  'The owner signs `typed_data` (EIP-712 `Batch` of the deposit wallet) locally and sends it back with `nonce`, `deadline` and `calls` unchanged to the matching submit; the service relays only batches it prepared, through Polymarket’s relayer, gas-less.';
const SUBMIT =
  'The batch must be one prepare returned for this wallet (else 409 `batch_not_prepared`), signed by the wallet’s owner (else 400 `signature_mismatch`), before its deadline (else 409 `batch_expired`). Answers once the relayer executed it (`status: executed`) or after 20 s (`submitted`: send the same body again to follow it). Refused or reverted on chain: 409 `batch_refused` / `batch_failed`, nothing changed, prepare again. Sending an executed batch again answers it again (idempotent).';
const ERRORS = [400, 403, 404, 409, 502, 503] as const;
const NO_RELAYER = '503 `relayer_not_configured` when the server has no relayer credentials.';

export const depositWalletEndpoints = {
  upgradeToDepositWallet: endpoint({
    method: 'post',
    path: '/api/user/wallet/external-upgrade-to-deposit-wallet',
    auth: 'agent-or-user',
    tag: 'Wallet',
    summary:
      'Trade through the linked EOA’s Polymarket deposit wallet (signature type 3): deploy it, or adopt it if it exists',
    description: `${ACCOUNT} The deposit wallet’s address is the deposit wallet factory’s CREATE2 address for the EOA (a Solady ERC-1967 clone, as Polymarket’s SDKs derive it). It is deployed through the relayer (\`WALLET-CREATE\`) unless it exists (a wallet made on polymarket.com: \`already_existed: true\`); from then on \`wallet_uses_deposit_wallet\` is true, orders are signed as type 3 (POLY_1271) with the deposit wallet as maker and signer, and the balance read is the deposit wallet’s. Idempotent. 409 \`no_external_wallet\` without a linked EOA. ${NO_RELAYER}`,
    response: DwUpgradeResponseSchema,
    errors: ERRORS,
  }),
  prepareDepositWalletApprovals: endpoint({
    method: 'post',
    path: '/api/user/wallet/external/dw-approvals/prepare',
    auth: 'agent-or-user',
    tag: 'Wallet',
    summary: 'The approval batch that makes the deposit wallet trading-ready, for its owner to sign',
    description: `${ACCOUNT} Reads the deposit wallet’s approvals on chain and batches the missing ones: pUSD \`approve(max)\` and CTF \`setApprovalForAll(true)\` to the V2 exchanges (standard, neg-risk A and B) and the neg-risk adapter, pUSD to the V2 fee escrow and the CTF collateral adapter, CTF to both collateral adapters (the twelve of GET /api/polymarket/allowances); with \`{"combo": true}\` also pUSD and PositionManager approvals to the combo exchange. \`already_set: true\` (nothing else) when none is missing. ${BATCH} 409 \`no_deposit_wallet\` before the upgrade. ${NO_RELAYER}`,
    body: DwApprovalsPrepareRequestSchema.optional(),
    response: DwApprovalsPrepareResponseSchema,
    errors: ERRORS,
  }),
  submitDepositWalletApprovals: endpoint({
    method: 'post',
    path: '/api/user/wallet/external/dw-approvals/submit',
    auth: 'agent-or-user',
    tag: 'Wallet',
    summary: 'Relay the deposit wallet’s approval batch its owner signed',
    description: `${ACCOUNT} ${SUBMIT}`,
    body: DwSubmitRequestSchema,
    response: DwSubmitResponseSchema,
    errors: ERRORS,
  }),
  prepareAgentDepositWalletApprovals: endpoint({
    method: 'post',
    path: '/api/user/agent/{agent_id}/wallet/external/dw-approvals/prepare',
    auth: 'agent-or-user',
    tag: 'Wallet',
    summary: 'The approval batch of the deposit wallet an agent trades with',
    description: `The same as POST /api/user/wallet/external/dw-approvals/prepare for the wallet agent \`agent_id\` trades with: the caller must be that agent (API key) or its human (user JWT), else 404. An agent without a wallet of its own trades with its human’s deposit wallet; an Elite agent wallet is managed (the service holds its key and signs for it), so it has no external signer: 409 \`agent_wallet_managed\`.`,
    params: AgentIdParamsSchema,
    body: DwApprovalsPrepareRequestSchema.optional(),
    response: DwApprovalsPrepareResponseSchema,
    errors: ERRORS,
  }),
  submitAgentDepositWalletApprovals: endpoint({
    method: 'post',
    path: '/api/user/agent/{agent_id}/wallet/external/dw-approvals/submit',
    auth: 'agent-or-user',
    tag: 'Wallet',
    summary: 'Relay the approval batch of the deposit wallet an agent trades with',
    description: `The same as POST /api/user/wallet/external/dw-approvals/submit for the wallet agent \`agent_id\` trades with (see its prepare). ${SUBMIT}`,
    params: AgentIdParamsSchema,
    body: DwSubmitRequestSchema,
    response: DwSubmitResponseSchema,
    errors: ERRORS,
  }),
  prepareWrapOnDepositWallet: endpoint({
    method: 'post',
    path: '/api/user/wallet/wrap-on-dw/external/prepare',
    auth: 'agent-or-user',
    tag: 'Wallet',
    summary: 'The batch that wraps the USDC.e held by the deposit wallet into pUSD',
    description: `${ACCOUNT} \`amount_units\` is the deposit wallet’s whole USDC.e balance (base units, 6 decimals); 0 means nothing to wrap (no batch). The batch is \`approve(CollateralOnramp)\` on USDC.e when the allowance is short, then \`CollateralOnramp.wrap(USDC.e, <deposit wallet>, amount)\`: the pUSD goes to the deposit wallet itself. ${BATCH} ${NO_RELAYER}`,
    response: DwWrapPrepareResponseSchema,
    errors: ERRORS,
  }),
  submitWrapOnDepositWallet: endpoint({
    method: 'post',
    path: '/api/user/wallet/wrap-on-dw/external/submit',
    auth: 'agent-or-user',
    tag: 'Wallet',
    summary: 'Relay the wrap batch the deposit wallet’s owner signed',
    description: `${ACCOUNT} ${SUBMIT}`,
    body: DwWrapSubmitRequestSchema,
    response: DwSubmitResponseSchema.extend({ amount_units: DwWrapPrepareResponseSchema.shape.amount_units }),
    errors: ERRORS,
  }),
};
