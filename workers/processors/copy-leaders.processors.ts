import { refreshCopyLeaders } from '../../shared/domains/copytrading/copy-leaders/refresh-copy-leaders.js';
import type { Processor } from '../../shared/composition/processor.js';

export const refreshCopyLeadersProcessor: Processor<'refresh-copy-leaders'> = async (_data, { deps }) =>
  refreshCopyLeaders(deps);
