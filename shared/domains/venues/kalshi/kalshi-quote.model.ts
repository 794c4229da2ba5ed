import { Schema, type Connection, type Model } from 'mongoose';
import type { SchemaRecord } from '../../schema-record.js';

/**
 * A Kalshi quote (`POST /api/sdk/trade/kalshi/quote`): the unsigned DFlow transaction handed to the
 * agent and what it was for. The submit takes a signed copy only of this very message (by digest),
 * from this agent, for this market, side and action, within QUOTE_TTL_SECONDS.
 */
const kalshiQuoteSchema = new Schema(
  {
    /** The quote_id. */
    _id: { type: String, required: true },
    agentId: { type: String, required: true },
    marketId: { type: String, required: true },
    ticker: { type: String, required: true },
    side: { type: String, enum: ['yes', 'no'], required: true },
    action: { type: String, enum: ['buy', 'sell'], required: true },
    /** The registered wallet the transaction was built for (its fee payer and signer). */
    wallet: { type: String, required: true },
    /** Buys: USDC base units sent; sells: outcome-token base units sold. */
    amountMicro: { type: Number, required: true, default: 0 },
    sharesMicro: { type: Number, required: true, default: 0 },
    inputMint: { type: String, required: true },
    outputMint: { type: String, required: true },
    /** DFlow's price: input spent at most and output expected, base units. */
    inAmount: { type: String, required: true },
    outAmount: { type: String, required: true },
    /** The traded outcome's price the quote implies. */
    price: { type: Number, required: true },
    lastValidBlockHeight: { type: Number, default: null },
    /** sha256 (hex) of the transaction's message bytes: a signed copy must carry exactly these. */
    messageDigest: { type: String, required: true },
    expiresAt: { type: Date, required: true },
  },
  { collection: 'kalshi_quotes', timestamps: true, versionKey: false },
);
// Quotes are useless a day after they expire.
kalshiQuoteSchema.index({ expiresAt: 1 }, { expireAfterSeconds: 86_400 });

export type KalshiQuoteRecord = SchemaRecord<typeof kalshiQuoteSchema>;
export type KalshiQuoteModel = Model<KalshiQuoteRecord>;

export function kalshiQuoteModel(conn: Connection): KalshiQuoteModel {
  return (
    (conn.models.KalshiQuote as KalshiQuoteModel | undefined) ??
    conn.model<KalshiQuoteRecord>('KalshiQuote', kalshiQuoteSchema)
  );
}
