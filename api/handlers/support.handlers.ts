import { troubleshoot } from '../../shared/domains/support/troubleshoot.js';
import type { HandlersFor } from '../endpoints/endpoint.js';
import type { supportEndpoints } from '../endpoints/support.endpoints.js';

export const supportHandlers: HandlersFor<typeof supportEndpoints> = {
  troubleshoot: async ({ deps, agent, body }) => troubleshoot(deps, agent, body),
};
