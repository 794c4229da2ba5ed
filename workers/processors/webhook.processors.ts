import { deliverWebhook } from '../../shared/domains/webhooks/deliver-webhook.js';
import { evaluatePriceAlerts } from '../../shared/domains/alerts/evaluate-price-alerts.js';
import type { Processor } from '../../shared/composition/processor.js';

export const deliverWebhookProcessor: Processor<'deliver-webhook'> = async (data, { deps }) =>
  deliverWebhook(deps, data);

export const evaluatePriceAlertsProcessor: Processor<'evaluate-price-alerts'> = async (data, { deps }) =>
  evaluatePriceAlerts(deps, data.marketId);
