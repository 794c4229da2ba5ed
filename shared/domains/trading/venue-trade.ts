import type { Deps } from '../../composition/deps.js';
import type { AgentRecord } from '../agents/agent.model.js';
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
}
