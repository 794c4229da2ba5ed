import { createServer } from 'node:http';
import type { Role } from './role.js';

/**
 * For the workers and jobs processes, which serve no API: `GET /healthz/live` for container
 * healthchecks and `GET /metrics` for Prometheus, on PORT.
 */
export const healthRole: Role = {
  name: 'health',
  async start(deps) {
    const server = createServer((req, res) => {
      if (req.method === 'GET' && req.url === '/healthz/live') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'ok' }));
      } else if (req.method === 'GET' && req.url === '/metrics') {
        deps.metrics.registry.metrics().then(
          (body) => res.writeHead(200, { 'content-type': deps.metrics.registry.contentType }).end(body),
          () => res.writeHead(500).end(),
        );
      } else {
        res.writeHead(404, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            detail: 'Not found',
            error: 'Not found',
            fix: 'Use /healthz/live or /metrics.',
          }),
        );
      }
    });
    await new Promise<void>((resolve, reject) =>
      server.listen(deps.env.PORT, deps.env.HOST, resolve).once('error', reject),
    );
    return { stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  },
};
