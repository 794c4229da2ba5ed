import { reactToFills } from '../../shared/domains/reactor/react-to-fills.js';
import { withdrawSignalsOfFills } from '../../shared/domains/reactor/withdraw-fills.js';
import type { Processor } from '../../shared/composition/processor.js';

export const reactToFillsProcessor: Processor<'react-to-fills'> = async (data, { deps }) =>
  reactToFills(deps, data.fillIds);

export const withdrawFillsProcessor: Processor<'withdraw-fills'> = async (data, { deps }) =>
  withdrawSignalsOfFills(deps, data.fillIds);
