import { z } from 'zod';

/**
 * Every environment variable the service reads, in one schema. This is the only module that reads
 * `process.env`; everything else receives the parsed `Env`. The README's configuration table is
 * generated from this schema (`npm run docs:config`) and a test keeps the two in step.
 */

const port = z.coerce.number().int().min(1).max(65535);
const positiveInt = z.coerce.number().int().positive();
const list = z.string().transform((v) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

/** An http(s) base URL without a trailing slash (paths are appended to it, prefix kept). */
const httpUrl = (fallback: string) =>
  z
    .url({ protocol: /^https?$/ })
    .default(fallback)
    .transform((v) => v.replace(/\/+$/, ''));

const SECONDS_PER_UNIT: Record<string, number> = { d: 86400, h: 3600, m: 60, s: 1 };

/** A duration as `<n>d`, `<n>h`, `<n>m`, `<n>s` or plain seconds, read as a number of seconds. */
const duration = (fallback: string) =>
  z
    .string()
    .regex(/^\d+[dhms]?$/, 'a duration such as 30d, 12h, 90m, 45s or a number of seconds')
    .default(fallback)
    .transform((v) => Number.parseInt(v, 10) * (SECONDS_PER_UNIT[v.at(-1)!] ?? 1));

const semver = z.string().regex(/^\d+(\.\d+){0,2}$/, 'a version such as 0.24.5');

/** Three numbers, free,pro,elite, as a lookup by tier. */
const perTier = (defaults: string) =>
  z
    .string()
    .regex(/^\d+,\d+,\d+$/, 'three numbers: free,pro,elite')
    .default(defaults)
    .transform((v) => {
      const [free, pro, elite] = v.split(',').map(Number) as [number, number, number];
      return { free, pro, elite };
    });

export const EnvSchema = z.object({
  NODE_ENV: z
    .enum(['development', 'test', 'production'])
    .default('development')
    .describe(
      'Runtime mode. `production` refuses to start without OPERATOR_TOKEN, SECRETS_MASTER_KEY and JWT_SECRET or JWT_PUBLIC_KEY (it never generates them), and with TRUST_PROXY=true, WEBHOOK_ALLOW_LOOPBACK=true or FAULT_KILL_AFTER_WRITES set.',
    ),
  PORT: port
    .default(8080)
    .describe('HTTP port of the API (and of the health endpoint of workers/jobs roles).'),
  HOST: z.string().min(1).default('0.0.0.0').describe('Interface the HTTP server binds to.'),
  PUBLIC_BASE_URL: z
    .url()
    .optional()
    .describe('Public base URL used in printed links and `claim_url`. Default: `http://localhost:<PORT>`.'),
  DATA_DIR: z
    .string()
    .min(1)
    .default('./data')
    .describe(
      'Where the embedded Redis and MongoDB-wire server keep their files, and the generated operator token, JWT secret and secrets master key.',
    ),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must start with redis:// or rediss://')
    .optional()
    .describe('Redis 7 (noeviction). Unset: `npm start` runs its own redis-server under DATA_DIR.'),
  REDIS_CLUSTER_NODES: z
    .string()
    .regex(
      /^[^\s,:]+:\d{1,5}(,[^\s,:]+:\d{1,5})*$/,
      'a comma-separated list of host:port (e.g. 10.0.0.1:7000,10.0.0.2:7000)',
    )
    .optional()
    .describe(
      'Redis Cluster seed nodes, `host:port,host:port`: every connection (queues, workers, caches, limits, pub/sub) uses the cluster, and BullMQ keys get the hash-tagged prefix `{QUEUE_PREFIX}`. Takes precedence over REDIS_URL.',
    ),
  MONGODB_URI: z
    .string()
    .regex(/^mongodb(\+srv)?:\/\//, 'must start with mongodb:// or mongodb+srv://')
    .optional()
    .describe(
      'MongoDB 7. Unset: `npm start` runs `mongod` if on the PATH, else mongo-java-server (H2 file under DATA_DIR).',
    ),
  MONGODB_DB: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,63}$/, 'letters, digits, _ and - only')
    .default('agent_trading')
    .describe('Database name used when MONGODB_URI names none.'),
  QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, _ and - only')
    .default('bull')
    .describe('Redis key prefix of every BullMQ queue (lets several deployments share one Redis).'),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe('pino log level.'),
  OPERATOR_TOKEN: z
    .string()
    .min(16, 'must be at least 16 characters')
    .optional()
    .describe(
      'Operator credential for /admin/queues and operator routes (Bearer, or HTTP Basic password). Unset outside production: generated into DATA_DIR/operator-token and printed once.',
    ),
  JWT_SECRET: z
    .string()
    .min(32, 'must be at least 32 characters')
    .optional()
    .describe(
      'HS256 secret that verifies user tokens (JWTs from your identity provider). Unset outside production: generated into DATA_DIR/jwt-secret.',
    ),
  JWT_PUBLIC_KEY: z
    .string()
    .optional()
    .describe('PEM public key (RSA → RS256, EC → ES256) that verifies user tokens instead of JWT_SECRET.'),
  JWT_ISSUER: z.string().optional().describe('Required `iss` of user tokens, when set.'),
  JWT_AUDIENCE: z.string().optional().describe('Required `aud` of user tokens, when set.'),
  JWT_MAX_LIFETIME: duration('30d').describe(
    'Longest accepted lifetime of a user token (`exp` minus the earlier of `iat` and now), e.g. 30d, 12h, 90m or a number of seconds; longer-lived tokens answer 401 with a fix.',
  ),
  SECRETS_MASTER_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'must be 32 bytes as 64 hex characters')
    .optional()
    .describe(
      'Master key (64 hex characters, `openssl rand -hex 32`) sealing the secrets stored at rest (CLOB credentials, managed wallet keys) by envelope encryption. Required when NODE_ENV=production; unset otherwise: generated into DATA_DIR/secrets-master-key. Without the key that sealed them, stored secrets cannot be opened.',
    ),
  TIER_AGENT_LIMITS: perTier('3,10,50').describe(
    'Active (not released) agents a user may have per tier: free,pro,elite.',
  ),
  TIER_MAX_TRADES_PER_DAY: perTier('1000,5000,10000').describe(
    'Highest `max_trades_per_day` an owner may set, per tier: free,pro,elite (the default setting is 50).',
  ),
  TIER_IMPORTS_PER_DAY: perTier('10,100,250').describe(
    'Market imports per day per tier: free,pro,elite (reported in `rate_limits`; re-imports are free).',
  ),
  SIM_COOLDOWN_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .default(120)
    .describe(
      'Free tier: seconds before an agent may buy the same market side again on sim (0 turns it off).',
    ),
  FAILED_TRADE_COOLDOWN_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .default(1800)
    .describe('Seconds a market side is closed to new buys after a buy on it failed (0 turns it off).'),
  WORKER_QUEUES: list
    .optional()
    .describe(
      'Comma-separated queues this workers process consumes. Default: every queue. Unknown names stop the process.',
    ),
  WORKER_CONCURRENCY: positiveInt
    .max(256)
    .default(8)
    .describe('Jobs processed at once per queue per process.'),
  SCHEDULER_JOBS: list
    .optional()
    .describe(
      'Comma-separated schedules the jobs process runs. Default: every schedule. Unknown names stop the process.',
    ),
  WORKER_LOCK_DURATION_MS: positiveInt
    .min(1000)
    .default(30000)
    .describe('BullMQ job lock; a job whose worker died is retried by another worker after about this long.'),
  WORKER_MAX_STALLED_COUNT: positiveInt
    .default(10)
    .describe('How many times a job may lose its worker (crash, kill) and be resumed before it is failed.'),
  TRADE_WORKER_CONCURRENCY: positiveInt
    .max(1024)
    .default(64)
    .describe(
      'Trades a workers process takes at once; the trades in hand are written together (group commit), so this is also the largest batch.',
    ),
  TRADE_BATCH_WAIT_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(1000)
    .default(0)
    .describe(
      'Milliseconds a trade batch stays open for more trades before it is written (0: written as soon as the previous batch is).',
    ),
  TRADE_WAIT_MS: positiveInt
    .max(29000)
    .default(25000)
    .describe(
      'How long POST /api/sdk/trade waits for the worker before answering `fill_status: "submitted"` (clients time out at 30 s).',
    ),
  SDK_MINIMUM_VERSION: semver
    .optional()
    .describe(
      'Client SDKs below this version are told `blocked` by GET /api/sdk/version-check. Unset: none.',
    ),
  SDK_LATEST_VERSION: semver
    .optional()
    .describe('Client SDKs below this version are told `deprecated` (upgrade advised). Unset: none.'),
  READ_CACHE_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(60)
    .default(2)
    .describe(
      'How long market lists and leaderboard pages are shared from the Redis read cache (0 disables it).',
    ),
  COPYTRADING_POSITIONS_CACHE_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(60)
    .default(30)
    .describe(
      "How long a copied wallet's public positions are shared from the Redis read cache by POST /api/sdk/copytrading/execute (0 reads the venue on every call).",
    ),
  LOCAL_CACHE_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(60)
    .default(5)
    .describe(
      'Longest life of an agent key, trading settings or tier cached in a process; changes drop them at once over Redis pub/sub, this only bounds a lost message (0 disables the cache).',
    ),
  WALLET_CASH_CACHE_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(300)
    .default(20)
    .describe(
      'How long a venue wallet balance read from its chain (portfolio, briefing, settings) is reused in a process before it is read again (0 reads it on every call).',
    ),
  SEED_CATALOGUE: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true')
    .describe(
      'Seed the generated sim market catalogue (211 markets) on start when it is missing. Idempotent.',
    ),
  VENUES: z
    .enum(['live', 'emulated'])
    .default('live')
    .describe(
      '`live`: adapters call the venue URLs below. `emulated` (`npm start` only): the Polymarket and Kalshi/DFlow/Solana emulators are started on loopback and the URLs point at them, an offline demo of the real-venue flows.',
    ),
  VENUE_MODULES: list
    .optional()
    .describe(
      'Venues beside the built-in ones: comma-separated module paths, resolved from the project root (e.g. `venues/my-venue/index.ts`). Default: the built-in venues only. Each module exports a `venueModule` (docs/adding-a-venue.md) whose own schema validates its settings from this environment.',
    ),
  POLYMARKET_GAMMA_URL: httpUrl('https://gamma-api.polymarket.com').describe(
    'Polymarket Gamma API (market and event metadata).',
  ),
  POLYMARKET_CLOB_URL: httpUrl('https://clob.polymarket.com').describe(
    'Polymarket CLOB API (books and prices; orders, cancels and order reads with the owner’s L2 credentials).',
  ),
  POLYMARKET_DATA_URL: httpUrl('https://data-api.polymarket.com').describe(
    'Polymarket Data API (wallet positions).',
  ),
  POLYGON_RPC_URL: httpUrl('https://polygon-rpc.com').describe('Polygon JSON-RPC endpoint (chain id 137).'),
  POLYGON_GAS_SPONSOR_KEY: z
    .string()
    .trim()
    .regex(/^(0x)?[0-9a-fA-F]{64}$/, 'a secp256k1 private key: 64 hex digits')
    .optional()
    .describe(
      'Secret. Private key of a Polygon account holding POL that pays the gas of the managed wallets’ one-time trading approvals (the service sends a new managed wallet the POL its approvals cost). Unset: a managed wallet needs POL of its own before its first trade.',
    ),
  POLYMARKET_RELAYER_URL: httpUrl('https://relayer-v2.polymarket.com').describe(
    'Polymarket relayer: deploys deposit wallets and executes the call batches their owners sign (approvals, USDC.e wrap, redemptions), gas-less.',
  ),
  POLYMARKET_BUILDER_API_KEY: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Polymarket builder API key the relayer authenticates deposit-wallet submissions with (`POLY_BUILDER_*` HMAC headers). Unset: the deposit-wallet routes answer 503 `relayer_not_configured`.',
    ),
  POLYMARKET_BUILDER_SECRET: z
    .string()
    .min(1)
    .optional()
    .describe('Secret. The builder API key’s secret (base64), the HMAC key of the relayer headers.'),
  POLYMARKET_BUILDER_PASSPHRASE: z
    .string()
    .min(1)
    .optional()
    .describe('Secret. The builder API key’s passphrase.'),
  KALSHI_BASE_URL: httpUrl('https://api.elections.kalshi.com/trade-api/v2').describe(
    'Kalshi Trade API v2 public market data (markets, events, orderbooks, historical markets), ending in /trade-api/v2. No key needed.',
  ),
  DFLOW_TRADE_API_URL: httpUrl('https://dev-quote-api.dflow.net').describe(
    'DFlow trade API (`/order`, `/order-status`) that builds the Solana transactions of Kalshi trades. The default dev host needs no key and routes real mainnet liquidity; production is https://quote-api.dflow.net with DFLOW_API_KEY.',
  ),
  DFLOW_METADATA_API_URL: httpUrl('https://dev-prediction-markets-api.dflow.net').describe(
    'DFlow prediction-market metadata API (Kalshi ticker → outcome mints, paths under /api/v1). Production: https://prediction-markets-api.dflow.net with DFLOW_API_KEY.',
  ),
  DFLOW_PROOF_API_URL: httpUrl('https://proof.dflow.net').describe(
    'DFlow Proof (KYC) status API (`/verify/{address}`), public.',
  ),
  DFLOW_API_KEY: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Secret. DFlow API key, sent as `x-api-key` to the trade and metadata APIs; needed by the production DFlow hosts, unset for the dev hosts.',
    ),
  SOLANA_RPC_URL: httpUrl('https://api.mainnet-beta.solana.com').describe(
    'Solana JSON-RPC endpoint (mainnet-beta) that Kalshi trades are sent to and read from.',
  ),
  BINANCE_BASE_URL: httpUrl('https://api.binance.com').describe(
    'Binance public spot market data (`/api/v3/klines`, no key), the source of the recorded candles (`GET /api/replay-data/candles`). https://data-api.binance.vision serves the same data.',
  ),
  VENUE_TIMEOUT_MS: positiveInt
    .max(30000)
    .default(5000)
    .describe('Deadline of one outbound venue request (retried on timeouts, 429 and 5xx).'),
  VENUE_RETRIES: z.coerce
    .number()
    .int()
    .min(0)
    .max(5)
    .default(2)
    .describe('Retries of an idempotent venue request after a timeout, 429 or 5xx.'),
  VENUE_BREAKER_FAILURES: positiveInt
    .default(5)
    .describe('Consecutive failures after which a venue host circuit opens (requests then fail fast).'),
  VENUE_BREAKER_COOLDOWN_MS: positiveInt
    .default(30000)
    .describe('How long an open venue circuit waits before one trial request.'),
  IMPORT_WAIT_MS: positiveInt
    .max(29000)
    .default(20000)
    .describe('How long POST /api/sdk/markets/import waits for the import worker before answering 503.'),
  FILL_FEED_ENABLED: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true')
    .describe(
      "Follow the fills of venues that publish who traded (Polymarket's exchange events on Polygon) in the workers processes that serve the `reactor` queue (WORKER_QUEUES unset or naming it), for Reactor. One process follows at a time, whichever holds the lease.",
    ),
  FILL_FEED_POLL_MS: positiveInt
    .min(50)
    .default(250)
    .describe(
      'How often the fill feed asks the chain for its newest block (one `eth_getBlockByNumber`; the fills of new blocks follow at once).',
    ),
  FILL_FEED_CONFIRMATIONS: positiveInt
    .max(256)
    .default(64)
    .describe(
      'Blocks after which a fill is final: the fill feed keeps this many recent block hashes and withdraws the fills of a block a reorg replaced within them (signals go out at once, before confirmation).',
    ),
  FILL_FEED_LEASE_MS: positiveInt
    .min(1000)
    .default(5000)
    .describe(
      "The fill feed's Redis lease: renewed by its holder on every poll; when the holder dies another workers process takes over within this time.",
    ),
  TAPE_RECORD_SECONDS: positiveInt
    .min(10)
    .default(60)
    .describe(
      'How often the tape recorder appends new prints (venue public trades, sim fills) and changed markets to the backtest tape store under DATA_DIR/tapes.',
    ),
  TAPE_REQUESTS_PER_MINUTE: positiveInt
    .default(6)
    .describe(
      'Backtest tapes an agent may have built per minute (POST /api/backtest/tape); tapes already built are free.',
    ),
  TAPE_MAX_WINDOW_DAYS: positiveInt
    .max(3660)
    .default(92)
    .describe('The longest window a backtest tape may cover, in days (longer: 422).'),
  TAPE_MAX_PRINTS: positiveInt
    .default(5_000_000)
    .describe(
      'The most trade prints one backtest tape may hold (more: 422, narrow the window or the markets).',
    ),
  TAPE_URL_TTL_SECONDS: positiveInt
    .min(60)
    .max(7 * 24 * 3600)
    .default(3600)
    .describe('How long the signed download URLs of a backtest tape work (fetched without authentication).'),
  // Below the official client's 60 s request timeout, so that it reads our 503 and its `detail`.
  TAPE_WAIT_MS: positiveInt
    .max(55000)
    .default(50000)
    .describe(
      'How long POST /api/backtest/tape waits for the tapes worker to cut a slice before answering 503.',
    ),
  EXTERNAL_PRICE_SECONDS: positiveInt
    .min(5)
    .default(30)
    .describe('How often the prices of open imported markets are refreshed from their venue.'),
  ORDER_SYNC_SECONDS: positiveInt
    .min(2)
    .default(10)
    .describe(
      'How often real-venue orders still working (resting GTC/GTD, delayed) are looked up on their venue.',
    ),
  SETTLEMENT_OVERDUE_MINUTES: positiveInt
    .default(30)
    .describe(
      'How long a venue match may wait for its final chain state (Polymarket CLOB trades neither CONFIRMED nor FAILED) before operators are told: GET /api/admin/settlements, the console Venues page, the venue_settlements_overdue metric and one error log line. It is still followed after that, less and less often (at most hourly).',
    ),
  REANCHOR_HALF_LIFE_SECONDS: positiveInt
    .default(300)
    .describe(
      "Half-life of an imported market's sim book drifting back to the venue price (the gap halves in this time).",
    ),
  RESOLUTION_CHECK_SECONDS: positiveInt
    .min(5)
    .default(60)
    .describe('How often open and closed imported markets are checked for resolution on their venue.'),
  RISK_MONITOR_SECONDS: positiveInt
    .min(2)
    .default(10)
    .describe('How often stop-loss / take-profit monitors are evaluated against current prices.'),
  CANDLE_BACKFILL_HOURS: positiveInt
    .max(192)
    .default(24)
    .describe(
      'How far back the candle recorder starts when a series has nothing stored yet (BTCUSDT, ETHUSDT, SOLUSDT at 1m); afterwards it continues from the newest stored candle.',
    ),
  FAULT_KILL_AFTER_WRITES: positiveInt
    .optional()
    .describe(
      'Crash tests only (refused in production): the process SIGKILLs itself after this many money-path writes.',
    ),
  WEBHOOK_ALLOW_LOOPBACK: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true')
    .describe(
      'Tests and local demos only (refused in production): webhooks may deliver to loopback (127.0.0.0/8, ::1, names resolving there). Link-local, metadata and private ranges stay refused.',
    ),
  WEBHOOK_RETRY_BASE_MS: positiveInt
    .default(2000)
    .describe(
      'First retry delay of a failed webhook delivery; each further retry waits twice as long (10 attempts per event).',
    ),
  WEBHOOK_TIMEOUT_MS: positiveInt
    .max(30_000)
    .default(5000)
    .describe(
      'Deadline of one webhook delivery (connect, send and response); slower receivers count as failures.',
    ),
  REACTOR_SIGNAL_TTL_SECONDS: positiveInt
    .max(24 * 3600)
    .default(600)
    .describe(
      'How long a Reactor signal stays in GET /api/sdk/reactor/pending (a fill older than this when read, after an outage, is journaled but never pending). Signals stay 24 h in GET /api/sdk/reactor/events.',
    ),
  REACTOR_STREAM_MAXLEN: positiveInt
    .min(100)
    .default(100_000)
    .describe(
      'About how many entries the Reactor event stream (Redis) keeps, for every agent together: how far back an SSE client resuming with Last-Event-ID is served.',
    ),
  REACTOR_IMPORTS_PER_HOUR: z.coerce
    .number()
    .int()
    .min(0)
    .default(200)
    .describe(
      'Markets Reactor imports on the spot per hour, across every process, when a watched wallet trades one not imported yet (0: never; such fills then make no signal).',
    ),
  REACTOR_STREAM_MAX_PER_KEY: positiveInt
    .max(100)
    .default(5)
    .describe(
      'Open Reactor event streams (GET /api/sdk/reactor/stream) one agent key may hold at once, across every API process; one more answers 429.',
    ),
  REACTOR_HEARTBEAT_SECONDS: z.coerce
    .number()
    .positive()
    .max(300)
    .default(15)
    .describe(
      'How often an open Reactor event stream gets a comment line when no event flows, so that proxies and clients keep it open (and a dead one is noticed).',
    ),
  SHOCK_LADDER_DROP_CENTS: z.coerce
    .number()
    .min(1)
    .max(50)
    .default(5)
    .describe(
      'A shock: the price of one outcome of a live imported sports market falls at least this many cents below its highest of the last SHOCK_LADDER_WINDOW_SECONDS (seen at each venue price refresh); each becomes one shock_ladder signal per agent whose /api/sdk/shock-ladder/config is enabled.',
    ),
  SHOCK_LADDER_WINDOW_SECONDS: positiveInt
    .min(10)
    .max(3600)
    .default(120)
    .describe(
      'The window a shock’s drop is measured over (from the highest price in it); past drops on the recorded tapes are found the same way. Refreshes come every EXTERNAL_PRICE_SECONDS, so keep it a few of those.',
    ),
  SHOCK_LADDER_SIGNAL_TTL_SECONDS: positiveInt
    .max(3600)
    .default(120)
    .describe('How long a shock_ladder signal stays in GET /api/sdk/reactor/pending (kept 24 h after).'),
  SHOCK_LADDER_MIN_HISTORY: positiveInt
    .max(1000)
    .default(5)
    .describe(
      'Past drops on the recorded tapes a depth distribution needs: fewer in the shock’s favoritism band, and the drops of every band are used (depth_source tapes_all_bands); fewer still, and SHOCK_LADDER_DEFAULT_DEPTHS_CENTS (depth_source default).',
    ),
  SHOCK_LADDER_HISTORY_DAYS: positiveInt
    .max(365)
    .default(30)
    .describe('How far back the recorded tapes are read for past drops of sports markets.'),
  SHOCK_LADDER_DEFAULT_DEPTHS_CENTS: z
    .string()
    .regex(/^\d+(\.\d+)?(,\d+(\.\d+)?){3}$/, 'four depths in cents, p50,p75,p90,p95, such as 6,9,13,18')
    .default('6,9,13,18')
    .describe(
      'The depth percentiles p50,p75,p90,p95 in cents a shock gets when the tapes hold too few past drops (SHOCK_LADDER_MIN_HISTORY).',
    ),
  TRUST_PROXY: z
    .string()
    .default('false')
    .describe(
      'Express `trust proxy` setting (`false`, `loopback`, a hop count or CIDRs; `true` outside production only); decides the client IP used by per-IP limits and the operator lockout.',
    ),
  REQUEST_BODY_LIMIT: z
    .string()
    .regex(/^\d+(b|kb|mb)$/i, 'a size such as 100kb or 1mb')
    .default('100kb')
    .describe('Largest accepted JSON request body; larger ones get 413.'),
  REGISTER_RATE_LIMIT_PER_MINUTE: positiveInt
    .default(10)
    .describe('Agent registrations allowed per client IP per minute.'),
  LEADERBOARD_LINK_WINDOW_HOURS: positiveInt
    .max(24 * 365)
    .default(24)
    .describe(
      'Two agents of one owner or one registration address that trade the same market within this many hours of each other do not rank on it (leaderboard farming).',
    ),
  CLAIM_CODE_TTL_HOURS: positiveInt
    .max(24 * 365)
    .default(168)
    .describe(
      'How long an unclaimed agent’s claim code works after it was issued (registration or rotation); later it answers 410 and the agent rotates it.',
    ),
  READY_TIMEOUT_MS: positiveInt
    .default(5000)
    .describe('Deadline of the queue round trip made by GET /healthz/ready.'),
  MONGODB_SERVER_SELECTION_TIMEOUT_MS: positiveInt
    .max(30_000)
    .default(750)
    .describe(
      'How long a database command waits for a reachable MongoDB server before failing: during an outage requests answer 503 with Retry-After after this long. (Startup waits up to 30 s for the database.)',
    ),
  MONGODB_SLOW_COMMAND_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(0)
    .describe(
      'Logs every database command that takes at least this many milliseconds (its name, collection and the fields it selects by, never values), to find the query that stalls the others. 0: off.',
    ),
  EMBEDDED_RESTART_MAX_FAILURES: positiveInt
    .default(5)
    .describe(
      '`npm start` restarts its embedded Redis and MongoDB-wire server when they exit, with backoff; after this many exits of one within EMBEDDED_RESTART_WINDOW_SECONDS it gives up and the process exits with code 75, so that compose or an orchestrator restarts the service.',
    ),
  EMBEDDED_RESTART_WINDOW_SECONDS: positiveInt
    .default(300)
    .describe(
      'The window in which EMBEDDED_RESTART_MAX_FAILURES exits of an embedded server open the circuit.',
    ),
  SHUTDOWN_TIMEOUT_MS: positiveInt
    .default(15000)
    .describe('How long a graceful shutdown waits for HTTP requests and active jobs before forcing.'),
});

export type Env = z.output<typeof EnvSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Never echoed in a ConfigError (a start-up error lands in logs). */
const SECRET_VARIABLES = new Set([
  'OPERATOR_TOKEN',
  'JWT_SECRET',
  'SECRETS_MASTER_KEY',
  'POLYMARKET_BUILDER_SECRET',
  'POLYMARKET_BUILDER_PASSPHRASE',
  'POLYGON_GAS_SPONSOR_KEY',
]);

/**
 * The raw environment a venue module's settings are read from: each module validates its own
 * variables with its own schema, so they are not part of `EnvSchema`.
 */
export const venueModuleEnvironment = (): Record<string, string | undefined> => ({ ...process.env });

/** Parses the environment once; throws a ConfigError that names every bad variable. */
export function loadEnv(source: Record<string, string | undefined> = process.env): Env {
  // Empty strings mean "unset" so that `FOO=` in a compose file or .env behaves like an absent variable.
  const cleaned = Object.fromEntries(
    Object.keys(EnvSchema.shape).map((key) => [key, source[key] === '' ? undefined : source[key]]),
  );
  const parsed = EnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const name = issue.path.join('.');
      const got = cleaned[name];
      const shown = got === undefined || SECRET_VARIABLES.has(name) ? '' : ` (got ${JSON.stringify(got)})`;
      return `${name}: ${issue.message}${shown}`;
    });
    throw new ConfigError(problems);
  }
  const env = parsed.data;
  if (env.NODE_ENV === 'production' && env.FAULT_KILL_AFTER_WRITES !== undefined) {
    throw new ConfigError(['FAULT_KILL_AFTER_WRITES: fault injection is refused when NODE_ENV=production']);
  }
  if (env.NODE_ENV === 'production' && env.TRUST_PROXY.trim().toLowerCase() === 'true') {
    throw new ConfigError([
      'TRUST_PROXY: `true` trusts every X-Forwarded-For entry, so any client names its own address and per-IP limits and the operator lockout count nothing; set the number of proxies in front of the service (e.g. 1) or their addresses (CIDRs)',
    ]);
  }
  if (env.NODE_ENV === 'production' && env.WEBHOOK_ALLOW_LOOPBACK) {
    throw new ConfigError([
      'WEBHOOK_ALLOW_LOOPBACK: loopback webhook receivers are refused when NODE_ENV=production (unset it)',
    ]);
  }
  if (env.NODE_ENV === 'production' && !env.JWT_SECRET && !env.JWT_PUBLIC_KEY) {
    throw new ConfigError([
      'JWT_SECRET or JWT_PUBLIC_KEY: one is required when NODE_ENV=production (user tokens cannot be verified otherwise)',
    ]);
  }
  if (env.NODE_ENV === 'production' && !env.OPERATOR_TOKEN) {
    throw new ConfigError([
      'OPERATOR_TOKEN: required when NODE_ENV=production (generate one with `openssl rand -hex 32`)',
    ]);
  }
  if (env.NODE_ENV === 'production' && !env.SECRETS_MASTER_KEY) {
    throw new ConfigError([
      'SECRETS_MASTER_KEY: required when NODE_ENV=production (generate one with `openssl rand -hex 32` and keep it: stored credentials and managed wallet keys cannot be opened without it)',
    ]);
  }
  return env;
}

export function publicBaseUrl(env: Env): string {
  return (env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, '');
}

/** Rows of the README configuration table, derived from the schema. */
export function describeEnv(): { name: string; default: string; description: string }[] {
  const json = z.toJSONSchema(EnvSchema, { io: 'input', unrepresentable: 'any' }) as {
    properties: Record<string, { default?: unknown; description?: string }>;
  };
  return Object.entries(json.properties).map(([name, prop]) => ({
    name,
    default: prop.default === undefined ? '' : String(prop.default),
    description: prop.description ?? '',
  }));
}
