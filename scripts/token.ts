// `npm run token -- --sub <id> [--email <e>] [--ttl <seconds>]`: mints a user token signed with the
// configured JWT_SECRET (or the development secret in DATA_DIR, the one `npm start` uses) and prints it.
import jwt from 'jsonwebtoken';
import { ConfigError, loadEnv } from '../shared/infra/config/env.js';
import { jwtSecret } from '../shared/infra/jwt.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

try {
  const env = loadEnv();
  const sub = arg('sub');
  if (!sub) {
    console.error(
      'usage: npm run token -- --sub <user id> [--email <email>] [--ttl <seconds, default 86400>]',
    );
    process.exit(2);
  }
  if (env.JWT_PUBLIC_KEY) {
    console.error(
      'JWT_PUBLIC_KEY is set: tokens come from your identity provider (this service holds no private key). Unset it to use JWT_SECRET locally.',
    );
    process.exit(1);
  }
  const email = arg('email');
  const token = jwt.sign({ sub, ...(email ? { email } : {}) }, jwtSecret(env), {
    algorithm: 'HS256',
    expiresIn: Number(arg('ttl') ?? 86400),
    ...(env.JWT_ISSUER ? { issuer: env.JWT_ISSUER } : {}),
    ...(env.JWT_AUDIENCE ? { audience: env.JWT_AUDIENCE } : {}),
  });
  console.log(token);
} catch (err) {
  console.error(err instanceof ConfigError ? err.message : String(err));
  process.exit(1);
}
