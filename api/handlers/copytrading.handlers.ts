import { executeCopytrading } from '../../shared/domains/copytrading/execute-copytrading.js';
import type { HandlersFor } from '../endpoints/endpoint.js';
import type { copytradingEndpoints } from '../endpoints/copytrading.endpoints.js';

export const copytradingHandlers: HandlersFor<typeof copytradingEndpoints> = {
  copytradingExecute: async ({ deps, agent, body }) => executeCopytrading(deps, agent, body),
};
