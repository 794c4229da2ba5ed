import type { Server } from 'node:http';
import { seedCatalogue } from '../shared/domains/markets/catalogue.js';
import { resolveOperatorToken } from '../shared/infra/operator-token.js';
import { runProcess } from '../shared/composition/run-process.js';
import type { Role } from '../shared/composition/role.js';
import { isMain } from '../shared/infra/process/is-main.js';
import { buildApp } from './app.js';
import { answerClientErrorsWithJson } from '../shared/infra/http/client-errors.js';
import { reactorStreamHubFor } from '../shared/domains/reactor/reactor-stream-hub.js';

function closeServer(server: Server, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => server.closeAllConnections(), timeoutMs);
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    // Keep-alive sockets with no request in flight would otherwise hold close() open.
    server.closeIdleConnections();
  });
}

/**
 * The HTTP API. On stop it ends its open event streams (they would hold the server open: their
 * clients reconnect to another process), then refuses new connections and lets in-flight requests
 * finish.
 */
export const apiRole: Role = {
  name: 'api',
  async start(deps) {
    if (deps.env.SEED_CATALOGUE) {
      const seeded = await seedCatalogue(deps.models.Market, deps.clock());
      if (seeded.inserted) deps.log.info(seeded, 'seeded the sim market catalogue');
    }
    // The queues the API waits on (trades, imports): their listeners are ready before traffic.
    await deps.queues.warmUp(['trades', 'market-imports']);
    const { token } = resolveOperatorToken(deps.env);
    const reactorStreams = reactorStreamHubFor(deps);
    const app = buildApp(deps, { operatorToken: token, reactorStreams });
    const server = await new Promise<Server>((resolve, reject) => {
      // Express 5 calls this back on a failed bind too (EADDRINUSE): only a bound server is up.
      const s = app.listen(deps.env.PORT, deps.env.HOST, (err?: Error) => (err ? reject(err) : resolve(s)));
      answerClientErrorsWithJson(s);
      s.once('error', reject);
    });
    deps.log.info({ port: deps.env.PORT, host: deps.env.HOST }, 'api listening');
    return {
      stop: async () => {
        await reactorStreams.close();
        await closeServer(server, deps.env.SHUTDOWN_TIMEOUT_MS);
      },
    };
  },
};

if (isMain(import.meta.url)) void runProcess('api', [apiRole], { embedded: false });
