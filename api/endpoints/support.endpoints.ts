import {
  TroubleshootRequestSchema,
  TroubleshootResponseSchema,
} from '../../shared/domains/support/troubleshoot.schemas.js';
import { endpoint } from './endpoint.js';

export const supportEndpoints = {
  troubleshoot: endpoint({
    method: 'post',
    path: '/api/sdk/troubleshoot',
    auth: 'agent-optional',
    // Explains "Agent is suspended." to the released agent itself; reads nothing of the owner.
    releasedAgent: 'answers-itself',
    freshAgent: true,
    tag: 'Support',
    summary: 'Explain an error and what to do about it',
    description:
      '`error_text` alone: matched against the service’s own errors, no key needed, unlimited. `message`: assisted help with your agent key — the message is matched too and your account is checked (status, kill switch, daily limit, cooldowns, recent failures); 5 answers per agent per UTC day.',
    body: TroubleshootRequestSchema,
    response: TroubleshootResponseSchema,
    errors: [429],
  }),
};
