import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import type { Logger } from 'pino';
import { createApp } from './app';
import type { Config } from './config';
import type { Deps } from './deps';
import { serviceJobs } from './jobs';
import { JOB_NAMES } from './jobs/names';
import { type PayoutGateway, payoutProviders, sandboxPayouts } from './payments/payout-gateway';
import { createRunner, type Runner } from './jobs/runner';
import { createRequestLog, type RequestLog } from './http/request-log';
import { healthHandler, type Lifecycle } from './ops/health';
import { createMetrics, metricsHandler } from './ops/metrics';
import { followConnections, shutdown } from './ops/shutdown';
import { createOutbox } from './notify/outbox';
import { CATALOGUE_VIEWS } from './schemas/catalogue';
import { gatewaysFromConfig, payoutsFromConfig } from './payments/configured';
import { processorGatewayLoader } from './payments/processor-gateways';
import { replacedProcessorUrls } from './payments/processor-urls';
import type { Gateways } from './payments/registry';
import { sealStoredSecrets } from './store/sealed-secrets';
import { openDatabase } from './store/db';
import { migrate } from './store/migrations';
import { createLimiter } from './store/rate-limits';
import { DEFAULT_PASSWORD_COST } from './dashboard/passwords';

export interface Service {
  url: string;
  server: Server;
  deps: Deps;
  /** The background jobs (server/jobs/); runAll() / runOnce() for tests that keep them stopped. */
  jobs: Runner;
  /** `draining` turns /health/ready to 503 (SIGTERM, see main.ts). */
  lifecycle: Lifecycle;
  /** The API's request log; flush() writes what waits (tests read the log right after a request). */
  requestLog: RequestLog;
  /** Stops at once: requests in flight finish (up to SHUTDOWN_GRACE_MS), jobs finish their round. */
  close(): Promise<void>;
  /** SIGTERM: not ready at once, serves SHUTDOWN_DRAIN_MS more, then closes (ops/shutdown.ts). */
  drain(): Promise<void>;
}

export interface ServiceOptions {
  now?: () => Date;
  /** Run the jobs in this process; default: the BACKGROUND_WORK setting. */
  background?: boolean;
  /** Instead of the gateways the configuration names (tests: gateways that fail on purpose). */
  gateways?: Gateways;
  /** Instead of PAYOUT_MODULE's provider; its `sandbox` flag says which mode it serves. */
  payouts?: PayoutGateway;
}

/** Opens the database, migrates it and listens: what `npm start` and the tests both run. */
export async function startService(config: Config, log: Logger, opts: ServiceOptions = {}): Promise<Service> {
  const now = opts.now ?? (() => new Date());
  const database = openDatabase({
    ...config,
    log,
    onConnectionError: (err) => log.warn({ err }, 'database connection lost; the pool opens a new one'),
  });
  await migrate(database);
  // After the migrations: the sandbox's books may be its tables (SANDBOX_BOOKS).
  const shared = opts.gateways ?? (await gatewaysFromConfig(config, { db: database.db, now }));
  const timeouts = await database.timeouts?.check();
  if (timeouts && !timeouts.inForce) log.warn({ timeouts: timeouts.detail }, 'database timeouts not in force');
  const processorUrls = replacedProcessorUrls(config);
  // Never quiet: a production service with these set would send processor requests to another host.
  if (Object.keys(processorUrls).length) log.warn({ processor_urls: processorUrls }, 'processor URLs replaced: tests only');
  if (config.strictTransactions) log.warn('a pool connection asked inside a transaction throws (DB_STRICT_TRANSACTIONS): tests only');
  if (config.passwordHashCost < DEFAULT_PASSWORD_COST) log.warn({ password_hash_cost: config.passwordHashCost }, 'dashboard passwords hashed below the recommended cost: tests only');
  const sealed = await sealStoredSecrets(database.db, database.secrets);
  // Each environment's connected processors join the shared gateways (registry.ts `of`).
  const gateways = shared.extend({ processors: processorGatewayLoader({ db: database.db, config, log, now }) });
  if (sealed) log.info({ sealed }, 'stored secrets sealed with SECRETS_KEY');
  let url = '';
  // A change's webhooks go out as soon as it commits: the delivery job woken (jobs/runner.ts), not at its next poll.
  const outbox = createOutbox(() => config.publicUrl ?? url, CATALOGUE_VIEWS, () => jobs.wake(JOB_NAMES.delivery));
  const configuredPayouts = opts.payouts ?? (await payoutsFromConfig(config));
  const limiter = createLimiter(database);
  // With METRICS_TOKEN, the gateways, the payout providers and the limiter are wrapped to be counted.
  const metrics = config.metricsToken ? createMetrics({ database, now }) : null;
  const counted = (p: PayoutGateway) => (metrics ? metrics.payouts(p) : p);
  const payouts = payoutProviders(configuredPayouts && counted(configuredPayouts), counted(sandboxPayouts()));
  const deps: Deps = metrics
    ? { config, database, log, now, outbox, gateways: metrics.gateways(gateways), payouts, limiter: metrics.limiter(limiter) }
    : { config, database, log, now, outbox, gateways, payouts, limiter };
  const jobs = createRunner(serviceJobs(deps), { now, log });
  const lifecycle: Lifecycle = { draining: false };
  const requestLog = createRequestLog({ db: database.db, log, now });
  const app = createApp(
    deps,
    {
      health: healthHandler({ database, jobs, lifecycle, processorUrls }),
      metrics: metrics ? { handler: metricsHandler(metrics, config.metricsToken!), observe: metrics.observeRequest } : undefined,
    },
    requestLog,
  );
  const server = createServer(app);
  const connections = followConnections(server);
  await new Promise<void>((resolve, reject) => {
    server.listen(config.port, config.host, () => resolve());
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  url = `http://${host}:${port}`;
  if (opts.background ?? config.backgroundWork) jobs.start();
  return {
    url,
    server,
    deps,
    jobs,
    lifecycle,
    requestLog,
    close: () => shutdown({ server, connections, jobs, database, lifecycle, log, requestLog }, { drainMs: 0, graceMs: config.shutdownGraceMs }),
    drain: () => shutdown({ server, connections, jobs, database, lifecycle, log, requestLog }, { drainMs: config.shutdownDrainMs, graceMs: config.shutdownGraceMs }),
  };
}
