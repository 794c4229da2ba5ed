import { deliverWebhook } from '../../shared/domains/webhooks/deliver-webhook.js';
import type { Processor } from '../../shared/composition/processor.js';

export const deliverWebhookProcessor: Processor<'deliver-webhook'> = async (data, { deps }) =>
  deliverWebhook(deps, data);
