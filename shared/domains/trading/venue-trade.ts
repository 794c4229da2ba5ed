import type { Deps } from '../../composition/deps.js';
import type { AgentRecord } from '../agents/agent.model.js';
import type { Admission } from './trade.model.js';
import type { Holdings, TradeShape } from './trade-result.js';
import type { TradeRequest } from './trade.schemas.js';

/** A validated trade request on its way to a venue. */
export interface VenueTrade {
  deps: Deps;
  agent: AgentRecord;
  req: TradeRequest;
  /** With the venue normalised and every warning so far. */
  shape: TradeShape;
  /** The agent's balance as the request found it; shares are read where the venue needs them. */
  holdings: Holdings;
  /**
   * The buy's safeguards already passed and counted by the caller (an atomic batch admits all its
   * legs before any runs: batch-trades.ts); the trade then carries this admission instead of
   * taking another. Absent: the trade is admitted on its own.
   */
  admitted?: Admission | null;
}
