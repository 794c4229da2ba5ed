import { recordCandles } from '../../shared/domains/candles/record-candles.js';
import type { Processor } from '../../shared/composition/processor.js';

export const recordCandlesProcessor: Processor<'record-candles'> = async (_data, { deps }) =>
  recordCandles(deps);
