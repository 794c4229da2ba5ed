import express, { type Request, type Response } from 'express';
import { listen } from '../listen.js';
import { candleAt, isPathSymbol, type PathCandle } from './price-path.js';

// Binance emulator: a loopback test double of the public spot market-data endpoints the service
// reads (`/api/v3/klines`, plus `/api/v3/ping` and `/api/v3/time`), served from the deterministic
// price path of ./price-path.ts. Like the real API it lists the candle still in progress (its
// close time is in the future): the service must leave that one out. No production module may
// import this.

export { candleAt, pathWentUp, priceAt, PATH_SYMBOLS, type PathSymbol } from './price-path.js';

/** Binance's kline intervals we emulate, in milliseconds (the case-sensitive names it accepts). */
const INTERVAL_MS: Record<string, number> = {
  '1m': 60_000,
  '3m': 180_000,
  '5m': 300_000,
  '15m': 900_000,
  '30m': 1_800_000,
  '1h': 3_600_000,
};
const DEFAULT_LIMIT = 500;
const MAX_LIMIT = 1000;

export interface BinanceEmulator {
  url: string;
  close(): Promise<void>;
}

export interface BinanceEmulatorOptions {
  /** 0 (default) = a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** The emulator's clock (epoch ms): decides which candle is still open. Default Date.now. */
  now?: () => number;
}

/** Binance's error body: HTTP 400 with `{code, msg}` (its own negative error codes). */
function refuse(res: Response, code: number, msg: string): void {
  res.status(400).json({ code, msg });
}

/** A wire row as Binance sends it: times as numbers, prices and volumes as 8-decimal strings. */
function wireRow(c: PathCandle): (number | string)[] {
  const quoteVolume = c.volume * ((c.open + c.close) / 2);
  return [
    c.openTime,
    c.open.toFixed(8),
    c.high.toFixed(8),
    c.low.toFixed(8),
    c.close.toFixed(8),
    c.volume.toFixed(8),
    c.closeTime,
    quoteVolume.toFixed(8),
    c.trades,
    (c.volume / 2).toFixed(8),
    (quoteVolume / 2).toFixed(8),
    '0',
  ];
}

const optionalMs = (v: unknown): number | undefined | null =>
  v === undefined ? undefined : /^\d{1,15}$/.test(String(v)) ? Number(v) : null;

export function createBinanceApp(now: () => number = Date.now) {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  app.get('/api/v3/ping', (_req, res) => void res.json({}));
  app.get('/api/v3/time', (_req, res) => void res.json({ serverTime: now() }));

  app.get('/api/v3/klines', (req: Request, res: Response) => {
    const { symbol, interval } = req.query;
    if (typeof symbol !== 'string' || symbol === '')
      return refuse(res, -1102, "Mandatory parameter 'symbol' was not sent, was empty/null, or malformed.");
    if (typeof interval !== 'string' || interval === '')
      return refuse(res, -1102, "Mandatory parameter 'interval' was not sent, was empty/null, or malformed.");
    if (!isPathSymbol(symbol)) return refuse(res, -1121, 'Invalid symbol.');
    const step = INTERVAL_MS[interval];
    if (step === undefined) return refuse(res, -1120, 'Invalid interval.');
    const startTime = optionalMs(req.query.startTime);
    const endTime = optionalMs(req.query.endTime);
    const limit = req.query.limit === undefined ? DEFAULT_LIMIT : Number(req.query.limit);
    if (startTime === null || endTime === null || !Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
      return refuse(res, -1130, 'Invalid data sent for a parameter.');
    if (startTime !== undefined && endTime !== undefined && startTime > endTime)
      return refuse(res, -1023, 'Start time is greater than end time.');

    // Nothing opens after the present: the last listed candle is the one in progress.
    const lastOpen = Math.floor(Math.min(endTime ?? Infinity, now()) / step) * step;
    let first: number;
    if (startTime !== undefined) first = Math.ceil(startTime / step) * step;
    else first = lastOpen - (limit - 1) * step; // no start: the most recent `limit` candles
    const rows: (number | string)[][] = [];
    for (let t = first; t <= lastOpen && rows.length < limit; t += step)
      rows.push(wireRow(candleAt(symbol, t, step)));
    res.json(rows);
  });

  app.use((_req, res) => void res.status(404).json({ code: -1, msg: 'Unknown endpoint.' }));
  return app;
}

export async function startBinanceEmulator(opts: BinanceEmulatorOptions = {}): Promise<BinanceEmulator> {
  const { server, url } = await listen(createBinanceApp(opts.now), opts.host ?? '127.0.0.1', opts.port ?? 0);
  return {
    url,
    close: () =>
      new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))),
  };
}
