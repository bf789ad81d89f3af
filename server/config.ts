import { resolve } from 'node:path';
import { z } from 'zod';
import { PAIN_VERSIONS } from './domain/sepa/pain001';
import { isBic, isIban, sepaText } from './domain/sepa/text';
import { JOB_NAMES } from './jobs/names';
import { hostsProblem } from './store/pg-hosts';
import { type SecretsKeys, secretsKeysOf } from './store/sealed-secrets';

// Read once at start, validated, and passed down: nothing else reads process.env.
const booleanFlag = z
  .enum(['true', 'false', '1', '0', ''])
  .optional()
  .transform((v) => v === 'true' || v === '1');

/** 32 random bytes in base64 (`openssl rand -base64 32`): the AES-256 key that seals stored secrets. */
const secretsKey = z.string().refine((v) => Buffer.from(v, 'base64').length === 32 && /^[A-Za-z0-9+/]+={0,2}$/.test(v), 'must be 32 bytes in base64 (openssl rand -base64 32)');

const JOBS = Object.values(JOB_NAMES);

/** `reconciliation=2000,subscription-charges=500`: a period in ms (100 ms to 1 hour) for each job named. */
const jobPeriods = z
  .string()
  .transform((v, ctx) => {
    const periods: Record<string, number> = {};
    for (const entry of v.split(',').map((e) => e.trim()).filter(Boolean)) {
      const [, name, ms] = /^([a-z-]+)=(\d+)$/.exec(entry) ?? [];
      if (!name || !ms) ctx.addIssue({ code: 'custom', message: `"${entry}" is not job=milliseconds` });
      else if (!(JOBS as string[]).includes(name)) ctx.addIssue({ code: 'custom', message: `"${name}" is not a job (${JOBS.join(', ')})` });
      else if (Number(ms) < 100 || Number(ms) > 3_600_000) ctx.addIssue({ code: 'custom', message: `${name}: ${ms} ms is outside 100 to 3600000` });
      else periods[name] = Number(ms);
    }
    return periods;
  });

/** postgres://…, or libpq's several hosts (`h1:5432,h2:5432`) with target_session_attrs=read-write (store/pg-hosts.ts). */
const postgresUrl = z
  .string()
  .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
  .superRefine((url, ctx) => {
    const problem = hostsProblem(url);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/** An IBAN or BIC as people write it (spaces, lower case), in the electronic format files carry. */
const electronic = (v: string) => v.replace(/\s+/g, '').toUpperCase();

/**
 * PAYOUT_PROVIDER=sepa-file: the platform's account every file pays from, checked with the
 * rules the files are built with (domain/sepa/), so a wrong debtor stops the start instead
 * of every payout file being refused later.
 */
function checkSepaDebtor(e: { PAYOUT_PROVIDER?: 'sepa-file'; PAYOUT_MODULE?: string; SEPA_DEBTOR_NAME?: string; SEPA_DEBTOR_IBAN?: string; SEPA_DEBTOR_BIC?: string }, ctx: z.RefinementCtx) {
  if (!e.PAYOUT_PROVIDER) return;
  const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  if (e.PAYOUT_MODULE) issue('PAYOUT_PROVIDER', 'sepa-file and PAYOUT_MODULE both name the payout provider of live environments: set only one of them');
  if (!sepaText(e.SEPA_DEBTOR_NAME ?? '', 70)) issue('SEPA_DEBTOR_NAME', 'is required with PAYOUT_PROVIDER=sepa-file: the name of the account the payout files pay from, in letters or digits');
  if (!isIban(electronic(e.SEPA_DEBTOR_IBAN ?? ''))) issue('SEPA_DEBTOR_IBAN', 'is required with PAYOUT_PROVIDER=sepa-file and must be a valid IBAN (country, length, mod-97 check digits)');
  if (e.SEPA_DEBTOR_BIC !== undefined && !isBic(electronic(e.SEPA_DEBTOR_BIC))) issue('SEPA_DEBTOR_BIC', 'must be a BIC of 8 or 11 characters');
}

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  PUBLIC_URL: z.url().optional(),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: postgresUrl.optional(),
  DATABASE_POOLER: z.enum(['none', 'transaction']).default('none'),
  MIGRATION_DATABASE_URL: postgresUrl.optional(),
  DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  DB_ACQUIRE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5_000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BODY_LIMIT: z.string().default('100kb'),
  NODE_ENV: z.string().optional(),
  DEMO: z.enum(['auto', 'true', 'false']).default('auto'),
  ALLOW_PRIVATE_NOTIFY_URLS: booleanFlag,
  BACKGROUND_WORK: z.enum(['true', 'false']).default('true'),
  TRUST_PROXY: booleanFlag,
  TEST_CLOCK_FILE: z.string().optional(),
  GATEWAY_TIMEOUT_MS: z.coerce.number().int().min(1).max(600_000).default(15_000),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  PAYMENT_CLAIM_MS: z.coerce.number().int().min(1).max(3_600_000).optional(),
  SUBSCRIPTION_CLAIM_MS: z.coerce.number().int().min(1).max(86_400_000).optional(),
  HOLD_EXPIRY_MS: z.coerce.number().int().min(60_000).max(30 * 86_400_000).default(7 * 86_400_000),
  SANDBOX_DISPUTE_DELAY_MS: z.coerce.number().int().min(0).max(86_400_000).default(5_000),
  SANDBOX_DISPUTE_REVIEW_MS: z.coerce.number().int().min(0).max(30 * 86_400_000).default(60_000),
  SANDBOX_LATENCY_MS: z.coerce.number().int().min(0).max(10_000).default(0),
  SANDBOX_BOOKS: z.enum(['database', 'memory']).default('database'),
  PAYMENT_SETTLE_WINDOW_MS: z.coerce.number().int().min(1000).max(7 * 24 * 3_600_000).default(10 * 60_000),
  GATEWAY_MODULES: z.string().optional(),
  PAYOUT_MODULE: z.string().optional(),
  PAYOUT_PROVIDER: z.enum(['sepa-file']).optional(),
  SEPA_DEBTOR_NAME: z.string().optional(),
  SEPA_DEBTOR_IBAN: z.string().optional(),
  SEPA_DEBTOR_BIC: z.string().optional(),
  SEPA_PAIN_VERSION: z.enum(PAIN_VERSIONS).default('pain.001.001.09'),
  GATEWAY_SETTINGS: z
    .string()
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be JSON' });
        return z.NEVER;
      }
    })
    .optional(),
  API_RATE_LIMIT: z.coerce.number().int().min(1).max(1_000_000).default(100),
  // log2 of scrypt's N for new dashboard passwords (server/dashboard/passwords.ts). Below 15
  // is for test suites only (the service warns at start): they hash thousands of passwords.
  PASSWORD_HASH_COST: z.coerce.number().int().min(10).max(20).default(15),
  IP_RATE_LIMIT: z.coerce.number().int().min(1).max(1_000_000).default(600),
  SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).max(600_000).default(5_000),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(25_000),
  EVENT_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(30),
  GATEWAY_CALL_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(30),
  REQUEST_LOG_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(30),
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
    .optional(),
  MAIL_FROM: z.email('must be an e-mail address').default('receipts@localhost'),
  TRIAL_REMINDER_DAYS: z.coerce.number().int().min(1).max(60).default(7),
  JOB_PERIODS: jobPeriods.default({}),
  SECRETS_KEY: secretsKey.optional(),
  // Tests only: where the Stripe connector sends its requests instead of Stripe's own hosts
  // (a test double on loopback). docs/processors.md.
  STRIPE_API_URL: z.url({ protocol: /^https?$/ }).optional(),
  STRIPE_FILES_URL: z.url({ protocol: /^https?$/ }).optional(),
  // Tests only: a stand-in for Stripe.js (https://js.stripe.com/v3/), served by the double of STRIPE_API_URL on its origin.
  STRIPE_JS_URL: z.url({ protocol: /^https?$/ }).optional(),
  // Tests only: Redsys's host replaced (its documented paths are appended), as STRIPE_API_URL.
  REDSYS_URL: z.url({ protocol: /^https?$/ }).optional(),
  PROCESSOR_URLS_IN_LIVE: booleanFlag,
  // Tests only: PostgreSQL refuses a pool connection asked inside an open transaction (store/open-transaction.ts).
  DB_STRICT_TRANSACTIONS: booleanFlag,
  SECRETS_KEY_PREVIOUS: z
    .string()
    .optional()
    .refine((v) => v === undefined || v.split(',').every((k) => secretsKey.safeParse(k.trim()).success), 'must be keys like SECRETS_KEY, separated by commas'),
})
  .refine((e) => e.NODE_ENV !== 'production' || e.PUBLIC_URL !== undefined, {
    message: 'is required with NODE_ENV=production: links in answers, webhooks and emails must not be built from the Host header a client sent',
    path: ['PUBLIC_URL'],
  })
  .refine((e) => e.NODE_ENV !== 'production' || e.SECRETS_KEY !== undefined, {
    message: 'is required with NODE_ENV=production: the webhook, return-signing and TOTP secrets in the database are sealed with it',
    path: ['SECRETS_KEY'],
  })
  .refine((e) => e.PAYMENT_CLAIM_MS === undefined || e.PAYMENT_CLAIM_MS >= 2 * e.GATEWAY_TIMEOUT_MS, {
    message: 'must be at least twice GATEWAY_TIMEOUT_MS, so a claim outlives every gateway call made under it',
    path: ['PAYMENT_CLAIM_MS'],
  })
  .refine((e) => e.SUBSCRIPTION_CLAIM_MS === undefined || e.SUBSCRIPTION_CLAIM_MS >= 2 * e.GATEWAY_TIMEOUT_MS, {
    message: 'must be at least twice GATEWAY_TIMEOUT_MS, so a scheduler never loses its claim mid-charge',
    path: ['SUBSCRIPTION_CLAIM_MS'],
  })
  .superRefine(checkSepaDebtor);

/** The platform's account live payouts are paid from by SEPA file (PAYOUT_PROVIDER=sepa-file). */
export interface SepaDebtorConfig {
  name: string;
  /** Electronic format. */
  iban: string;
  bic: string | null;
  version: (typeof PAIN_VERSIONS)[number];
}

export type Config = {
  port: number;
  host: string;
  /** Base URL used in absolute links (pagination, checkout URLs); defaults to localhost:PORT. */
  publicUrl: string | null;
  dataDir: string;
  databaseUrl: string | null;
  /** PostgreSQL: the longest one statement may run (`statement_timeout`); a transaction left idle is ended after twice that. */
  dbStatementTimeoutMs: number;
  /** PostgreSQL: the longest a request waits for a pooled connection before it answers 503. */
  dbAcquireTimeoutMs: number;
  /**
   * PostgreSQL: `transaction` when a transaction pooler (PgBouncer, pool_mode=transaction) is
   * between the service and the database: the timeouts are not sent at connect (the pooler
   * refuses them) but must be the role's or the database's, and are checked.
   */
  databasePooler: 'none' | 'transaction';
  /** PostgreSQL: a direct connection (past the pooler) for the migrations; null: DATABASE_URL. */
  migrationDatabaseUrl: string | null;
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
  bodyLimit: string;
  /** `/demo/` and the demo environment: off in production unless DEMO=true. */
  demo: 'auto' | 'on' | 'off';
  allowPrivateNotifyUrls: boolean;
  /** Webhook delivery and the expiry sweep in this process; off for API-only processes. */
  backgroundWork: boolean;
  trustProxy: boolean;
  /** Tests only: the clock is real time plus the milliseconds in this file (server/clock.ts). */
  testClockFile: string | null;
  /** Tests only: a pool connection asked inside an open transaction throws instead of waiting (DatabaseOptions). */
  strictTransactions: boolean;
  /** How long a gateway call may take before it is abandoned (and later reconciled). */
  gatewayTimeoutMs: number;
  /** How long a webhook's receiver may take to answer before the attempt counts as failed. */
  webhookTimeoutMs: number;
  /**
   * How long a reservation (a claimed payment attempt, a sale action under way) holds
   * before the reconciliation job may take it over: always at least twice the timeout.
   */
  paymentClaimMs: number;
  /**
   * How long the subscription scheduler's claim of a subscription lasts: a live pass never
   * loses it mid-charge, and a subscription whose attempt is still being settled is looked
   * at again once per claim, not on every pass.
   */
  subscriptionClaimMs: number;
  /** An uncaptured hold older than this is voided by the hold-expiry job (issuers drop them after about 7 days). */
  holdExpiryMs: number;
  /** How long after a capture the sandbox bank disputes a sale paid with a disputing test card (docs/disputes.md). */
  sandboxDisputeDelayMs: number;
  /** How long each call of a sandbox gateway to its processor takes, as a network call would (payments/sandbox-latency.ts); 0: at once. */
  sandboxLatencyMs: number;
  /** Where the sandbox processor keeps what it charged (payments/sandbox-books.ts): its own tables, or this process's memory. */
  sandboxBooks: 'database' | 'memory';
  /** How long after evidence is submitted the sandbox bank decides a dispute. */
  sandboxDisputeReviewMs: number;
  /**
   * How long a gateway call of unknown outcome is looked up (with backoff) before a
   * `not_found` is believed and the call failed; one still unproven then goes to `attention`.
   */
  paymentSettleWindowMs: number;
  /** Extra gateway adapters: modules whose default export builds them (docs/payments.md). */
  gatewayModules: string[];
  /** Passed to every gateway module. */
  gatewaySettings: unknown;
  /** A payout provider instead of the sandbox's: a module whose default export builds it from gatewaySettings. */
  payoutModule: string | null;
  /** PAYOUT_PROVIDER=sepa-file: live environments pay out by SEPA files from this account (docs/balance.md#payout-files); null otherwise. */
  sepa: SepaDebtorConfig | null;
  /** API requests per second and environment (burst of the same size); an environment may override it. */
  apiRateLimit: number;
  /** log2 of scrypt's N for new dashboard passwords (PASSWORD_HASH_COST); stored hashes keep their own. */
  passwordHashCost: number;
  /** Requests per minute and client address on the public pages that write (sign-up, provider return, demo). */
  ipRateLimit: number;
  /** GET /metrics is served only when set, to `Authorization: Bearer <token>`. */
  metricsToken: string | null;
  /** Events (with their deliveries and attempts) are deleted this many days after they were created, unless a delivery is still pending. */
  eventRetentionDays: number;
  /** Gateway calls settled for good are deleted this many days after they settled. */
  gatewayCallRetentionDays: number;
  /** The API's request log (the dashboard's Requests page) is deleted this many days after each request. */
  requestLogRetentionDays: number;
  /** On SIGTERM: how long to keep serving after /health/ready turns 503 (load balancers take the process out). */
  shutdownDrainMs: number;
  /** Then: how long requests in flight may take to finish before their connections are cut. */
  shutdownGraceMs: number;
  /** Customers' emails go to this SMTP server; null: written to DATA_DIR/outbox/ as .eml files (development). */
  smtpUrl: string | null;
  /** The sender address of customers' emails; the merchant's name is its display name. */
  mailFrom: string;
  /** How many days before the first charge after a free trial the customer is reminded. */
  trialReminderDays: number;
  /** SECRETS_KEY and the rotated-out SECRETS_KEY_PREVIOUS: what seals the secrets stored readable. */
  secretsKeys: SecretsKeys;
  /** The jobs whose period the operator chose (JOB_PERIODS), by name, in ms; the others keep their own. */
  jobPeriods: Partial<Record<string, number>>;
  /**
   * Tests only: Stripe's API and files hosts, Stripe.js and Redsys's host replaced (STRIPE_API_URL,
   * STRIPE_FILES_URL, STRIPE_JS_URL, REDSYS_URL; null: the processor's own). Sandboxes use them; live
   * environments only with `inLive` (PROCESSOR_URLS_IN_LIVE=true), else live keys always
   * reach the processor itself.
   */
  processorUrls: { stripeApi: string | null; stripeFiles: string | null; stripeJs: string | null; redsys: string | null; inLive: boolean };
};

/** An environment variable the service cannot run with: its message names each, for a person to fix. */
export class ConfigError extends Error {}

/** The configuration of a process starting (the service, the migrator): one it cannot run with ends it with its message alone, exit 2. */
export function startingConfig(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable means "not set", as in most shells' `VAR= command`.
  const set = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(set);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    publicUrl: e.PUBLIC_URL?.replace(/\/+$/, '') ?? null,
    dataDir: resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL ?? null,
    dbStatementTimeoutMs: e.DB_STATEMENT_TIMEOUT_MS,
    dbAcquireTimeoutMs: e.DB_ACQUIRE_TIMEOUT_MS,
    databasePooler: e.DATABASE_POOLER,
    migrationDatabaseUrl: e.MIGRATION_DATABASE_URL ?? null,
    logLevel: e.LOG_LEVEL,
    bodyLimit: e.BODY_LIMIT,
    // In production the demo shop and its environment exist only when asked for.
    demo: e.DEMO === 'true' ? 'on' : e.DEMO === 'false' || e.NODE_ENV === 'production' ? 'off' : 'auto',
    allowPrivateNotifyUrls: e.ALLOW_PRIVATE_NOTIFY_URLS,
    backgroundWork: e.BACKGROUND_WORK === 'true',
    trustProxy: e.TRUST_PROXY,
    testClockFile: e.TEST_CLOCK_FILE ?? null,
    strictTransactions: e.DB_STRICT_TRANSACTIONS,
    gatewayTimeoutMs: e.GATEWAY_TIMEOUT_MS,
    webhookTimeoutMs: e.WEBHOOK_TIMEOUT_MS,
    paymentClaimMs: e.PAYMENT_CLAIM_MS ?? Math.max(60_000, 4 * e.GATEWAY_TIMEOUT_MS),
    subscriptionClaimMs: e.SUBSCRIPTION_CLAIM_MS ?? Math.max(5 * 60_000, 4 * e.GATEWAY_TIMEOUT_MS),
    holdExpiryMs: e.HOLD_EXPIRY_MS,
    paymentSettleWindowMs: e.PAYMENT_SETTLE_WINDOW_MS,
    sandboxDisputeDelayMs: e.SANDBOX_DISPUTE_DELAY_MS,
    sandboxDisputeReviewMs: e.SANDBOX_DISPUTE_REVIEW_MS,
    sandboxLatencyMs: e.SANDBOX_LATENCY_MS,
    sandboxBooks: e.SANDBOX_BOOKS,
    gatewayModules: (e.GATEWAY_MODULES ?? '').split(',').map((m) => m.trim()).filter(Boolean),
    gatewaySettings: e.GATEWAY_SETTINGS ?? null,
    payoutModule: e.PAYOUT_MODULE?.trim() || null,
    sepa: e.PAYOUT_PROVIDER
      ? { name: e.SEPA_DEBTOR_NAME!.trim(), iban: electronic(e.SEPA_DEBTOR_IBAN!), bic: e.SEPA_DEBTOR_BIC ? electronic(e.SEPA_DEBTOR_BIC) : null, version: e.SEPA_PAIN_VERSION }
      : null,
    apiRateLimit: e.API_RATE_LIMIT,
    passwordHashCost: e.PASSWORD_HASH_COST,
    ipRateLimit: e.IP_RATE_LIMIT,
    metricsToken: e.METRICS_TOKEN ?? null,
    eventRetentionDays: e.EVENT_RETENTION_DAYS,
    gatewayCallRetentionDays: e.GATEWAY_CALL_RETENTION_DAYS,
    requestLogRetentionDays: e.REQUEST_LOG_RETENTION_DAYS,
    shutdownDrainMs: e.SHUTDOWN_DRAIN_MS,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    smtpUrl: e.SMTP_URL ?? null,
    mailFrom: e.MAIL_FROM,
    trialReminderDays: e.TRIAL_REMINDER_DAYS,
    jobPeriods: e.JOB_PERIODS,
    secretsKeys: secretsKeysOf(e.SECRETS_KEY, e.SECRETS_KEY_PREVIOUS),
    processorUrls: { stripeApi: e.STRIPE_API_URL?.replace(/\/+$/, '') ?? null, stripeFiles: e.STRIPE_FILES_URL?.replace(/\/+$/, '') ?? null, stripeJs: e.STRIPE_JS_URL ?? null, redsys: e.REDSYS_URL?.replace(/\/+$/, '') ?? null, inLive: e.PROCESSOR_URLS_IN_LIVE },
  };
}
