import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Serves an emulator's app on `host:port` (0: any free port); the server and its base URL. */
export async function listen(
  app: RequestListener,
  host: string,
  port = 0,
): Promise<{ server: Server; url: string }> {
  const server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port: bound } = server.address() as AddressInfo;
  return { server, url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}` };
}
