import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  type: string;
  id: string;
  data: Record<string, unknown>;
}

/** A receiver on 127.0.0.1 that records every webhook body it is sent and answers 200. */
export async function webhookReceiver() {
  const got: ReceivedWebhook[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as ReceivedWebhook);
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    got,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
