import { resolve } from 'node:path';
import { z } from 'zod';

// Read once at start, validated, and passed down: nothing else reads process.env.
const booleanFlag = z
  .enum(['true', 'false', '1', '0', ''])
  .optional()
  .transform((v) => v === 'true' || v === '1');

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  PUBLIC_URL: z.url().optional(),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BODY_LIMIT: z.string().default('100kb'),
  DEMO: z.enum(['auto', 'true', 'false']).default('auto'),
  ALLOW_PRIVATE_NOTIFY_URLS: booleanFlag,
  BACKGROUND_WORK: z.enum(['true', 'false']).default('true'),
  TRUST_PROXY: booleanFlag,
  TEST_CLOCK_FILE: z.string().optional(),
  GATEWAY_TIMEOUT_MS: z.coerce.number().int().min(1).max(600_000).default(15_000),
  PAYMENT_CLAIM_MS: z.coerce.number().int().min(1).max(3_600_000).optional(),
  GATEWAY_MODULES: z.string().optional(),
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
}).refine((e) => e.PAYMENT_CLAIM_MS === undefined || e.PAYMENT_CLAIM_MS >= 2 * e.GATEWAY_TIMEOUT_MS, {
  message: 'must be at least twice GATEWAY_TIMEOUT_MS, so a claim outlives every gateway call made under it',
  path: ['PAYMENT_CLAIM_MS'],
});

export type Config = {
  port: number;
  host: string;
  /** Base URL used in absolute links (pagination, checkout URLs); defaults to localhost:PORT. */
  publicUrl: string | null;
  dataDir: string;
  databaseUrl: string | null;
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
  bodyLimit: string;
  demo: 'auto' | 'on' | 'off';
  allowPrivateNotifyUrls: boolean;
  /** Webhook delivery and the expiry sweep in this process; off for API-only processes. */
  backgroundWork: boolean;
  trustProxy: boolean;
  /** Tests only: the clock is real time plus the milliseconds in this file (server/clock.ts). */
  testClockFile: string | null;
  /** How long a gateway call may take before it is abandoned (and later reconciled). */
  gatewayTimeoutMs: number;
  /**
   * How long a reservation (a claimed payment attempt, a sale action under way) holds
   * before the reconciliation job may take it over: always at least twice the timeout.
   */
  paymentClaimMs: number;
  /** Extra gateway adapters: modules whose default export builds them (docs/payments.md). */
  gatewayModules: string[];
  /** Passed to every gateway module. */
  gatewaySettings: unknown;
};

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable means "not set", as in most shells' `VAR= command`.
  const set = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(set);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    publicUrl: e.PUBLIC_URL?.replace(/\/+$/, '') ?? null,
    dataDir: resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL ?? null,
    logLevel: e.LOG_LEVEL,
    bodyLimit: e.BODY_LIMIT,
    demo: e.DEMO === 'auto' ? 'auto' : e.DEMO === 'true' ? 'on' : 'off',
    allowPrivateNotifyUrls: e.ALLOW_PRIVATE_NOTIFY_URLS,
    backgroundWork: e.BACKGROUND_WORK === 'true',
    trustProxy: e.TRUST_PROXY,
    testClockFile: e.TEST_CLOCK_FILE ?? null,
    gatewayTimeoutMs: e.GATEWAY_TIMEOUT_MS,
    paymentClaimMs: e.PAYMENT_CLAIM_MS ?? Math.max(60_000, 4 * e.GATEWAY_TIMEOUT_MS),
    gatewayModules: (e.GATEWAY_MODULES ?? '').split(',').map((m) => m.trim()).filter(Boolean),
    gatewaySettings: e.GATEWAY_SETTINGS ?? null,
  };
}
