// `npm start`: API + workers + scheduler in one process, on the embedded default (own Redis and
// MongoDB-wire server under DATA_DIR) unless REDIS_URL / MONGODB_URI point elsewhere.
import { apiRole } from '../api/server.js';
import { jobsRole } from '../jobs/main.js';
import { publicBaseUrl } from '../shared/infra/config/env.js';
import { resolveOperatorToken } from '../shared/infra/operator-token.js';
import { runProcess } from '../shared/composition/run-process.js';
import { workersRole } from '../workers/main.js';

const proc = await runProcess('service', [apiRole, workersRole, jobsRole], { embedded: true });
const base = publicBaseUrl(proc.env);
const operator = resolveOperatorToken(proc.env);
const lines = [
  '',
  `  Agent trading service is up: ${base}`,
  `  API docs:         ${base}/docs   (OpenAPI: ${base}/openapi.json)`,
  `  Queue dashboard:  ${base}/admin/queues   (operator token as password, any user name)`,
  `  Readiness:        ${base}/healthz/ready`,
  ...(proc.infrastructure?.started ?? []).map((s) => `  Started ${s}`),
  operator.generated
    ? `  Operator token (generated into ${operator.file}; shown only now): ${operator.token}`
    : operator.file
      ? `  Operator token: in ${operator.file}`
      : '  Operator token: from OPERATOR_TOKEN',
  '  Ctrl-C stops everything gracefully.',
  '',
];
console.log(lines.join('\n'));
