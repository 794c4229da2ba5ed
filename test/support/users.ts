import jwt from 'jsonwebtoken';
import { jwtSecret } from '../../shared/infra/jwt.js';
import { testContext } from './context.js';
import { api, randomIp } from './http.js';

/** A user token signed with the test service's secret (as `npm run token` signs one). */
export const tokenFor = (sub: string, options: jwt.SignOptions = {}) =>
  jwt.sign({ sub }, jwtSecret(testContext().env), { algorithm: 'HS256', expiresIn: 600, ...options });

export const asUser = (token: string) => ({ Authorization: `Bearer ${token}` });

export const claim = (token: string, code: string, ip = randomIp()) =>
  api()
    .post('/api/sdk/agents/claim')
    .set(asUser(token))
    .set('X-Forwarded-For', ip)
    .send({ claim_code: code });
