import {
  deleteWebhook,
  listWebhooks,
  registerWebhook,
  testWebhooks,
} from '../../shared/domains/webhooks/webhooks.js';
import type { HandlersFor } from '../endpoints/endpoint.js';
import type { webhookEndpoints } from '../endpoints/webhooks.endpoints.js';

export const webhookHandlers: HandlersFor<typeof webhookEndpoints> = {
  registerWebhook: ({ deps, agent, body }) => registerWebhook(deps, agent, body),
  listWebhooks: ({ deps, agent }) => listWebhooks(deps, agent),
  testWebhook: ({ deps, agent }) => testWebhooks(deps, agent),
  deleteWebhook: ({ deps, agent, params }) => deleteWebhook(deps, agent, params.webhook_id),
};
