import { randomInt } from 'node:crypto';
import request from 'supertest';
import { testContext } from './context.js';

/** A fresh client IP per call site, so per-IP limits of one test never leak into another. */
export function randomIp(): string {
  return `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
}

export function api() {
  return request(testContext().app);
}

export interface RegisteredAgent {
  agent_id: string;
  api_key: string;
  claim_code: string;
  [key: string]: unknown;
}

export async function registerAgent(
  body: Record<string, unknown> = { name: 'test-agent' },
): Promise<RegisteredAgent> {
  const res = await api().post('/api/sdk/agents/register').set('X-Forwarded-For', randomIp()).send(body);
  if (res.status !== 200) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as RegisteredAgent;
}
