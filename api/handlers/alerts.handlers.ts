import {
  createAlert,
  deleteAlert,
  listAlerts,
  triggeredAlerts,
} from '../../shared/domains/alerts/price-alerts.js';
import type { alertEndpoints } from '../endpoints/alerts.endpoints.js';
import type { HandlersFor } from '../endpoints/endpoint.js';

export const alertHandlers: HandlersFor<typeof alertEndpoints> = {
  createAlert: ({ deps, agent, body }) => createAlert(deps, agent, body),
  listAlerts: ({ deps, agent, query }) => listAlerts(deps, agent, query.include_triggered),
  triggeredAlerts: ({ deps, agent, query }) => triggeredAlerts(deps, agent, query.hours),
  deleteAlert: ({ deps, agent, params }) => deleteAlert(deps, agent, params.alert_id),
};
