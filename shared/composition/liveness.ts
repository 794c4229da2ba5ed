import type { Infrastructure } from '../infra/embedded/infrastructure.js';

/**
 * `down` once the process gave up restarting an embedded server (its circuit opened): only a
 * restart of the whole service helps then, which is what a failing liveness probe asks for.
 * Dependencies that are merely unreachable are readiness matters and never fail liveness.
 */
export function liveness(infra: Infrastructure): 'ok' | 'down' {
  return infra.abandonedServers?.().length ? 'down' : 'ok';
}
