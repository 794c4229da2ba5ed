import { deleteMonitor, listMonitors, setMonitor } from '../../shared/domains/monitors/monitors.js';
import { deleteRiskAlert, listRiskAlerts } from '../../shared/domains/monitors/risk-alerts.js';
import type { monitorEndpoints } from '../endpoints/monitors.endpoints.js';
import type { HandlersFor } from '../endpoints/endpoint.js';

export const monitorHandlers: HandlersFor<typeof monitorEndpoints> = {
  setMonitor: ({ deps, agent, params, query, body }) =>
    setMonitor(deps, agent, params.market_id, query.venue, body),
  listMonitors: ({ deps, agent }) => listMonitors(deps, agent),
  deleteMonitor: ({ deps, agent, params, query }) =>
    deleteMonitor(deps, agent, params.market_id, query.venue, query.side),
  listRiskAlerts: ({ deps, agent }) => listRiskAlerts(deps, agent),
  deleteRiskAlert: ({ deps, agent, params }) => deleteRiskAlert(deps, agent, params.market_id, params.side),
};
