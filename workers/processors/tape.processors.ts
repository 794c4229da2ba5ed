import type { Processor } from '../../shared/composition/processor.js';
import { recordTapes } from '../../shared/domains/tapes/record-tapes.js';
import { cutTape } from '../../shared/domains/tapes/slice-tape.js';

export const recordTapesProcessor: Processor<'record-tapes'> = async (_data, { deps }) => recordTapes(deps);

export const sliceTapeProcessor: Processor<'slice-tape'> = async (data, { deps }) =>
  cutTape(deps.env, data, deps.clock());
