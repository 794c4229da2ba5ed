import { Router } from 'express';
import type { KalshiState } from '../state.js';

// DFlow Proof (KYC) status under `<base>/proof` (kalshi.md §2.8): `GET /verify/{address}` →
// `{verified}` from the admin-controlled KYC set; unverified by default, no pending state.

export function proofRouter(state: KalshiState): Router {
  const r = Router();
  r.get(
    '/verify/:address',
    (req, res) => void res.json({ verified: state.kyc.has(String(req.params.address)) }),
  );
  r.use((_req, res) => void res.status(404).json({ error: 'Not found' }));
  return r;
}
