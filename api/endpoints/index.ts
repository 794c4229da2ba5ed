import { agentEndpoints } from './agents.endpoints.js';
import { systemEndpoints } from './system.endpoints.js';

/** The whole HTTP contract: one table per domain, merged. */
export const ENDPOINTS = { ...agentEndpoints, ...systemEndpoints };
export type EndpointName = keyof typeof ENDPOINTS;
