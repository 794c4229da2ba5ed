import { Router, type Request } from 'express';
import { one } from '../../polymarket/routes/params.js';
import { isBase58Of } from '../base58.js';
import {
  INIT_PREDICTION_MARKET_COST,
  PRIORITY_FEE_LAMPORTS,
  COMPUTE_UNIT_LIMIT,
  COMPUTE_UNIT_PRICE_MICROLAMPORTS,
  SETTLEMENT_MINTS,
} from '../constants.js';
import { DflowError, routeNotFound } from '../dflow/errors.js';
import { priceOrder } from '../dflow/pricing.js';
import type { OutcomeMint } from '../dflow/mints.js';
import type { KalshiState } from '../state.js';

// DFlow's trade API under `<base>/dflow-trade` (kalshi.md §2.3–§2.6): `GET /order` prices a
// prediction-market order and, given `userPublicKey`, issues the unsigned v0 transaction that opens
// it; `GET /order-status` follows it. Refusals are 400 `{code, msg}` with DFlow's codes, checked in
// the order the real API's docs imply (parameters, then route, then KYC).

const PROOF_DEEP_LINK = 'https://dflow.net/proof';

const bad = (code: string, msg: string) => new DflowError(400, code, msg);

function slippage(v: string | undefined, code: string): number | 'auto' {
  if (v === undefined || v === 'auto') return 'auto';
  if (!/^\d+$/.test(v) || Number(v) > 10_000)
    throw bad(
      code,
      `Invalid ${code === 'invalid_slippage_bps' ? 'slippageBps' : 'predictionMarketSlippageBps'}`,
    );
  return Number(v);
}

function route(req: Request, state: KalshiState) {
  const inputMint = one(req, 'inputMint');
  const outputMint = one(req, 'outputMint');
  const amountText = one(req, 'amount');
  if (!inputMint) throw bad('invalid_input_mint', 'Missing inputMint');
  if (!outputMint) throw bad('invalid_output_mint', 'Missing outputMint');
  if (amountText === undefined) throw bad('requested_input_amount_is_zero', 'Missing amount');
  if (!isBase58Of(inputMint, 32)) throw bad('invalid_input_mint', 'Invalid input mint');
  if (!isBase58Of(outputMint, 32)) throw bad('invalid_output_mint', 'Invalid output mint');
  if (inputMint === outputMint)
    throw bad('same_input_and_output_mint', 'Input and output mints are the same');
  // Atomic units only: "8.5" (human units) has no route; 0 is its own error.
  if (!/^\d+$/.test(amountText)) throw routeNotFound('amount must be an integer number of atomic units');
  const amount = BigInt(amountText);
  if (amount === 0n) throw bad('requested_input_amount_is_zero', 'The requested input amount is zero');

  const user = one(req, 'userPublicKey');
  if (user !== undefined && !isBase58Of(user, 32))
    throw bad('invalid_user_public_key', 'Invalid user public key');
  const slippageBps = slippage(one(req, 'slippageBps'), 'invalid_slippage_bps');
  const pmSlippage = slippage(one(req, 'predictionMarketSlippageBps'), 'prediction_slippage_bps_above_max');
  if (typeof pmSlippage === 'number' && typeof slippageBps === 'number' && pmSlippage < slippageBps)
    throw bad(
      'prediction_slippage_bps_below_routing_slippage',
      'predictionMarketSlippageBps must be at least slippageBps',
    );
  const destinationWallet = one(req, 'destinationWallet');
  if (destinationWallet && one(req, 'destinationTokenAccount'))
    throw bad(
      'both_destination_params_specified',
      'Specify destinationWallet or destinationTokenAccount, not both',
    );
  if (destinationWallet !== undefined && !isBase58Of(destinationWallet, 32))
    throw bad('invalid_request', 'Invalid destinationWallet');
  const sponsor = one(req, 'sponsor');
  if (sponsor && one(req, 'predictionMarketInitPayer'))
    throw bad(
      'both_sponsor_and_prediction_market_init_payer_specified',
      'Specify sponsor or predictionMarketInitPayer, not both',
    );
  if (sponsor !== undefined && !isBase58Of(sponsor, 32)) throw bad('invalid_request', 'Invalid sponsor');

  if (state.inMaintenance()) throw routeNotFound('Kalshi is in its scheduled maintenance window');

  // Buy: settlement mint → outcome mint of the same rail. Sell/redeem: outcome mint → its rail.
  const isSettlement = (m: string) => (SETTLEMENT_MINTS as readonly string[]).includes(m);
  const outcomeOf = (m: string): OutcomeMint | undefined => {
    const w = state.mints.get(m);
    return w && !('ledger' in w) ? w : undefined;
  };
  let direction: 'buy' | 'sell';
  let outcome: OutcomeMint | undefined;
  if (isSettlement(inputMint)) {
    direction = 'buy';
    outcome = outcomeOf(outputMint);
    if (!outcome || outcome.settlementMint !== inputMint) throw routeNotFound('no route between these mints');
  } else {
    direction = 'sell';
    outcome = outcomeOf(inputMint);
    if (!outcome || outcome.settlementMint !== outputMint)
      throw routeNotFound('no route between these mints');
  }
  const market = state.markets.get(outcome.ticker);
  if (!market) throw routeNotFound('unknown market');
  const priced = priceOrder(market, outcome, direction, amount);

  // KYC: the receiving wallet of a buy must be Proof-verified (sells too, when so configured).
  const receiver = destinationWallet ?? user;
  const gated = priced.action === 'buy' || (priced.action === 'sell' && state.settings.kyc_on_sells);
  if (user !== undefined && gated && !state.kyc.has(receiver!)) {
    throw new DflowError(
      400,
      'unverified_wallet_not_allowed',
      'The wallet is not verified: complete Proof verification to trade prediction markets',
      {
        deepLink: `${PROOF_DEEP_LINK}?wallet=${receiver}`,
      },
    );
  }
  return { priced, market, user, destinationWallet, sponsor, slippageBps, pmSlippage };
}

export function dflowTradeRouter(state: KalshiState): Router {
  const r = Router();

  r.get('/order', (req, res) => {
    try {
      const { priced, market, user, destinationWallet, sponsor, slippageBps, pmSlippage } = route(req, state);
      const initCost = market.dflowInitialized ? 0n : INIT_PREDICTION_MARKET_COST;
      const body: Record<string, unknown> = {
        inputMint: priced.inputMint,
        inAmount: String(priced.inAmount),
        outputMint: priced.outputMint,
        outAmount: String(priced.outAmount),
        otherAmountThreshold: String(priced.outAmount),
        minOutAmount: String(priced.outAmount),
        slippageBps: slippageBps === 'auto' ? 50 : slippageBps,
        predictionMarketSlippageBps: pmSlippage === 'auto' ? 100 : pmSlippage,
        priceImpactPct: '0',
        contextSlot: state.chain.slot,
        executionMode: 'async',
        revertMint: priced.inputMint,
        routePlan: [
          {
            venue: 'Kalshi',
            marketKey: market.ticker,
            inputMint: priced.inputMint,
            outputMint: priced.outputMint,
            inAmount: String(priced.inAmount),
            outAmount: String(priced.outAmount),
          },
        ],
        isNativePredictionMarketOutput: true,
      };
      if (initCost > 0n) body.initPredictionMarketCost = Number(initCost);
      if (user !== undefined) {
        const { order, transaction } = state.desk.issue(
          priced,
          { user, destination: destinationWallet ?? user, sponsor, initCost },
          state.now(),
        );
        Object.assign(body, {
          transaction,
          lastValidBlockHeight: order.lastValidBlockHeight,
          computeUnitLimit: COMPUTE_UNIT_LIMIT,
          prioritizationFeeLamports: Number(PRIORITY_FEE_LAMPORTS),
          prioritizationType: {
            computeBudget: {
              microLamports: COMPUTE_UNIT_PRICE_MICROLAMPORTS,
              estimatedMicroLamports: COMPUTE_UNIT_PRICE_MICROLAMPORTS,
            },
          },
        });
        if (initCost > 0n) body.predictionMarketInitPayerMustSign = false;
      }
      res.json(body);
    } catch (err) {
      if (!(err instanceof DflowError)) throw err;
      res.status(err.status).json(err.body);
    }
  });

  r.get('/order-status', (req, res) => {
    const signature = one(req, 'signature');
    if (!signature || !isBase58Of(signature, 64)) {
      res.status(400).json({ code: 'invalid_signature', msg: 'Invalid signature' });
      return;
    }
    const order = state.desk.bySig(signature);
    if (!order) {
      res.status(404).json({ code: 'not_found', msg: 'Order not found' });
      return;
    }
    res.json({
      status: order.status,
      inAmount: String(order.status === 'closed' ? order.filledIn : order.inAmount),
      outAmount: String(order.filledOut),
      ...(order.fills.length ? { fills: order.fills } : {}),
      ...(order.reverts.length ? { reverts: order.reverts } : {}),
    });
  });

  r.use((_req, res) => void res.status(404).json({ code: 'not_found', msg: 'Not found' }));
  return r;
}
