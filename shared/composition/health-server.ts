import { createServer } from 'node:http';
import { errorBody } from '../infra/errors.js';
import { isLockedOut, operatorLockout } from '../infra/operator-lockout.js';
import { answerClientErrorsWithJson } from '../infra/http/client-errors.js';
import { resolveOperatorToken } from '../infra/operator-token.js';
import { liveness } from './liveness.js';
import type { Role } from './role.js';

/**
 * For the workers and jobs processes, which serve no API: `GET /healthz/live` for container
 * healthchecks and `GET /metrics` for Prometheus (with the operator token, as on the API), on PORT.
 */
export const healthRole: Role = {
  name: 'health',
  async start(deps) {
    const { token: operatorToken } = resolveOperatorToken(deps.env);
    // The API's lockout: a wrong token here counts against the address there too, and the other way.
    const lockout = operatorLockout(deps.redis, deps.env.QUEUE_PREFIX, operatorToken);
    const server = createServer((req, res) => {
      const json = (status: number, message: string, fix: string, headers: Record<string, string> = {}) =>
        res
          .writeHead(status, { 'content-type': 'application/json', ...headers })
          .end(JSON.stringify(errorBody(message, fix)));
      if (req.method === 'GET' && req.url === '/healthz/live') {
        const status = liveness(deps.infra);
        res
          .writeHead(status === 'ok' ? 200 : 503, { 'content-type': 'application/json' })
          .end(JSON.stringify({ status }));
      } else if (req.method === 'GET' && req.url === '/metrics') {
        const address = req.socket.remoteAddress ?? 'unknown';
        lockout
          .checkHeader(address, req.headers.authorization)
          .then(async (checked) => {
            if (checked !== 'right') {
              json(
                401,
                'Operator authentication required',
                'Send `Authorization: Bearer <OPERATOR_TOKEN>`.',
                {
                  'www-authenticate': 'Bearer',
                },
              );
              return;
            }
            const body = await deps.metrics.registry.metrics();
            res.writeHead(200, { 'content-type': deps.metrics.registry.contentType }).end(body);
          })
          .catch((err: unknown) =>
            isLockedOut(err)
              ? json(429, err.message, err.fix, err.options.headers)
              : json(500, 'Metrics could not be collected', 'Retry the scrape; see the process log.'),
          );
      } else {
        json(404, 'Not found', 'Use /healthz/live or /metrics.');
      }
    });
    answerClientErrorsWithJson(server);
    await new Promise<void>((resolve, reject) =>
      server.listen(deps.env.PORT, deps.env.HOST, resolve).once('error', reject),
    );
    return { stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  },
};
