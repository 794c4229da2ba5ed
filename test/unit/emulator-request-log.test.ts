import assert from 'node:assert/strict';
import type { NextFunction, Request, Response } from 'express';
import { requestLog } from '../emulators/polymarket/control.js';
import type { PolymarketState } from '../emulators/polymarket/state.js';

// The Polymarket emulator logs every request for tests to inspect; a service left running against
// it (VENUES=emulated npm start, whose fill feed polls the chain four times a second) must not
// make that log grow without end.

describe('Polymarket emulator request log #unit', () => {
  it('when far more requests arrive than the log keeps, then it holds a bounded number, the newest last', () => {
    const state = { requests: [], now: () => 0 } as unknown as PolymarketState;
    const log = requestLog(state);
    const next: NextFunction = () => undefined;
    for (let i = 0; i < 250_000; i++)
      log({ method: 'POST', path: `/polygon/${i}`, query: {} } as unknown as Request, {} as Response, next);
    assert.ok(state.requests.length <= 100_000, `${state.requests.length} requests kept`);
    assert.ok(state.requests.length >= 50_000);
    assert.equal(state.requests.at(-1)?.path, '/polygon/249999');
  });
});
