import { fileClock } from './clock';
import { startingConfig } from './config';
import { demoDashboardInstructions, demoInstructions, ensureDemoEnvironment } from './demo';
import { testCardFor } from './domain/test-cards';
import { createLogger } from './http/logging';
import { startService } from './service';

const config = startingConfig();
const log = createLogger(config.logLevel);
const service = await startService(config, log, { now: config.testClockFile ? fileClock(config.testClockFile) : undefined });
const baseUrl = config.publicUrl ?? service.url;

const demo = await ensureDemoEnvironment(config, service.deps.database, new Date());
// Printed to stdout rather than logged: the keys are for the person at the terminal and
// must never end up in a log store.
if (demo) process.stdout.write(demoInstructions(demo, baseUrl, testCardFor(service.deps.gateways.all, 'approved') ?? '') + (await demoDashboardInstructions(service.deps.database, demo, baseUrl, new Date())));
log.info({ url: baseUrl, engine: service.deps.database.engine }, 'listening');

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    log.info({ signal }, 'shutting down');
    // SIGTERM comes from an orchestrator behind a load balancer; Ctrl-C from a person at a terminal.
    await (signal === 'SIGTERM' ? service.drain() : service.close());
    log.info('stopped');
    process.exit(0);
  });
}
