import type { Refusal } from '../refusal.js';

/** The trade refusal of an agent its human released (spec §4: trading is refused while suspended). */
export const agentSuspended = (): Refusal => ({
  error: 'Agent is suspended.',
  errorCode: 'agent_suspended',
  retryable: false,
  hint: 'The owner released this agent; they can reactivate it from their account.',
  category: 'agent',
});
