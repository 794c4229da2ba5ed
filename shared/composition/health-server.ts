import { createServer } from 'node:http';
import { isOperatorCredential } from '../infra/authorization-header.js';
import { errorBody } from '../infra/errors.js';
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
        if (!isOperatorCredential(req.headers.authorization, operatorToken)) {
          json(401, 'Operator authentication required', 'Send `Authorization: Bearer <OPERATOR_TOKEN>`.', {
            'www-authenticate': 'Bearer',
          });
          return;
        }
        deps.metrics.registry.metrics().then(
          (body) => res.writeHead(200, { 'content-type': deps.metrics.registry.contentType }).end(body),
          () => json(500, 'Metrics could not be collected', 'Retry the scrape; see the process log.'),
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
