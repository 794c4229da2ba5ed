// Paced (open-loop) load: requests start on a fixed schedule whatever the answers do, the way
// independent clients arrive. autocannon's `overallRate` is not that: each connection sends its
// share of a second's requests back to back at every second tick (bursts of `connections` requests)
// and its latency histogram is "corrected" with a 1 ms expected interval, so its paced percentiles
// measure the bursts and the correction, not the service.
import http from 'node:http';

export interface Paced {
  seconds: number;
  /** Requests per second. */
  rate: number;
  /** At most this many at once; a request whose turn comes while all are busy waits for one. */
  maxInFlight: number;
  /** A request not started this long after its scheduled time is given up and counted as an error. */
  giveUpMs?: number;
}

export interface PacedOutcome {
  /** Answered requests, ms from the scheduled start (so waiting for a free slot counts). */
  latencies: number[];
  errors: number;
  elapsedSeconds: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `send` `rate` times a second for `seconds`; `send` resolves true for a good answer. */
export async function pacedLoad(p: Paced, send: () => Promise<boolean>): Promise<PacedOutcome> {
  const giveUpMs = p.giveUpMs ?? 10_000;
  const latencies: number[] = [];
  let errors = 0;
  let inFlight = 0;
  const queued: (() => void)[] = [];
  const acquire = () =>
    inFlight < p.maxInFlight ? (inFlight++, Promise.resolve()) : new Promise<void>((r) => queued.push(r));
  // A finished request hands its slot straight to the oldest waiting one.
  const release = () => (queued.length ? queued.shift()!() : inFlight--);
  const start = performance.now();
  const total = Math.floor(p.seconds * p.rate);
  const runs: Promise<void>[] = [];
  for (let k = 0; k < total; k++) {
    const at = start + (k * 1000) / p.rate;
    // Timers fire at 1 ms at best: requests due within the next millisecond start now.
    const wait = at - performance.now();
    if (wait >= 1) await sleep(wait);
    runs.push(
      (async () => {
        await acquire();
        try {
          if (performance.now() - at > giveUpMs) errors++;
          else if (await send()) latencies.push(performance.now() - at);
          else errors++;
        } catch {
          errors++;
        } finally {
          release();
        }
      })(),
    );
  }
  await Promise.all(runs);
  return { latencies, errors, elapsedSeconds: (performance.now() - start) / 1000 };
}

export interface HttpRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** Keep-alive HTTP/1.1 requests to `baseUrl` over at most `connections` sockets. */
export function httpSender(baseUrl: string, connections: number, timeoutMs = 10_000) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const { hostname, port } = new URL(baseUrl);
  return {
    send(req: HttpRequest): Promise<boolean> {
      return new Promise((resolve) => {
        const r = http.request(
          {
            agent,
            hostname,
            port,
            method: req.method,
            path: req.path,
            headers: req.headers,
            timeout: timeoutMs,
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve((res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300));
            res.on('error', () => resolve(false));
          },
        );
        r.on('timeout', () => r.destroy(new Error('timeout')));
        r.on('error', () => resolve(false));
        r.end(req.body);
      });
    },
    close: () => agent.destroy(),
  };
}
