import type { Logger } from 'pino';
import type { Config } from '../config';
import type { Db } from '../store/db';
import { changesOf, keptUntilChanged } from '../store/auth-changes';
import { type ProcessorWithCredentials, processorsForGateways } from '../store/processors';
import { claimOrderNumber } from '../store/redsys-orders';
import { findRedsysOperation, keepRedsysOperation } from '../store/redsys-operations';
import type { Gateway } from './gateway';
import type { ProcessorLoader } from './registry';
import { redsysUrl, stripeApiUrl, stripeFilesUrl, stripeJsUrl } from './processor-urls';
import { processorWebhookUrl } from './processors';
import { OPERATION_TYPES } from './redsys/actions';
import type { OperationLog } from './redsys/context';
import { redsysGateways } from './redsys/gateway';
import { stripeGateways } from './stripe/gateway';

// The gateways of an environment's connected processors, for `deps.gateways.of(env)`
// (registry.ts): one indexed query per call, the credentials opened by the store, and the
// gateways built once per processor and version and kept in this process's memory, so a
// request does not build a Stripe client, and a change (rotated keys, a delete) written by
// any process is seen at the next call, since it moves the row's version on.

export interface ProcessorLoaderDeps {
  db: Db;
  config: Config;
  log: Logger;
  now?: () => Date;
}

/** Beyond this many processors' gateways the memory starts again: bounded whatever the number of environments. */
const MAX_KEPT = 10_000;

/** Each gateway names the account it acts for (`account`): what the processor keeps per account is kept under it. */
const build = (deps: ProcessorLoaderDeps, p: ProcessorWithCredentials): Gateway[] => gatewaysOfType(deps, p).map((g) => ({ ...g, account: p.id }));

function gatewaysOfType(deps: ProcessorLoaderDeps, p: ProcessorWithCredentials): Gateway[] {
  switch (p.type) {
    case 'stripe':
      return stripeGateways(
        {
          secretKey: p.credentials.secret_key,
          webhookSecret: p.credentials.webhook_secret,
          apiUrl: stripeApiUrl(deps.config, p.environment_mode === 'live'),
          filesUrl: stripeFilesUrl(deps.config, p.environment_mode === 'live'),
          jsUrl: stripeJsUrl(deps.config, p.environment_mode === 'live'),
          ...(p.credentials.publishable_key ? { publishableKey: p.credentials.publishable_key } : {}),
          ...(p.statement_descriptor ? { statementDescriptorSuffix: p.statement_descriptor } : {}),
          timeoutMs: deps.config.gatewayTimeoutMs,
        },
        { now: deps.now },
      );
    case 'redsys': {
      const live = p.environment_mode === 'live';
      // Redsys posts each payment's notification where the payment says (DS_MERCHANT_MERCHANTURL): this processor's own route.
      const path = processorWebhookUrl('', p.id);
      return redsysGateways(
        {
          ...p.credentials,
          live,
          apiUrl: redsysUrl(deps.config, live),
          timeoutMs: deps.config.gatewayTimeoutMs,
          ...(deps.config.publicUrl ? { notificationUrl: deps.config.publicUrl + path } : { notificationPath: path }),
        },
        { now: deps.now, claimOrder: claimOn(deps, p), operations: operationsOn(deps, p) },
      );
    }
  }
}

/** A Redsys payment's order number claimed in the database, per (merchant code, terminal) whichever environment connects the terminal (migration 109). */
function claimOn(deps: ProcessorLoaderDeps, p: Extract<ProcessorWithCredentials, { type: 'redsys' }>) {
  const { merchant_code: merchantCode, terminal } = p.credentials;
  return (reference: string, orderNumber: string) => claimOrderNumber(deps.db, { merchantCode, terminal, orderNumber, reference, processorId: p.id }, (deps.now ?? (() => new Date()))());
}

/** What the terminal's connector sent for each operation, kept in the database before it is sent (migration 117), for the process that settles it after a crash. */
function operationsOn(deps: ProcessorLoaderDeps, p: Extract<ProcessorWithCredentials, { type: 'redsys' }>): OperationLog {
  const { merchant_code: merchantCode, terminal } = p.credentials;
  return {
    keep: (reference, s) =>
      keepRedsysOperation(deps.db, {
        reference,
        merchant_code: merchantCode,
        terminal,
        order_number: s.order,
        kind: s.kind,
        amount: s.amount,
        currency_code: s.currencyCode,
        count_before: s.before,
        sent_at: new Date(s.at).toISOString(),
      }),
    async recall(reference) {
      const row = await findRedsysOperation(deps.db, { merchantCode, terminal, reference });
      if (!row) return undefined;
      return {
        kind: row.kind,
        order: row.order_number,
        amount: row.amount,
        currencyCode: row.currency_code,
        type: OPERATION_TYPES[row.kind],
        before: row.count_before,
        at: Date.parse(row.sent_at),
      };
    },
  };
}

export function processorGatewayLoader(deps: ProcessorLoaderDeps): ProcessorLoader {
  const kept = new Map<string, { version: number; gateways: Gateway[] }>();
  const gatewaysOf = (p: ProcessorWithCredentials): Gateway[] => {
    const hit = kept.get(p.id);
    if (hit?.version === p.version) return hit.gateways;
    if (kept.size >= MAX_KEPT) kept.clear();
    const gateways = build(deps, p);
    kept.set(p.id, { version: p.version, gateways });
    deps.log.debug({ processor: p.id, version: p.version }, 'processor gateways built');
    return gateways;
  };
  // Read again once a processor or an environment may have changed (store/auth-changes.ts).
  const processorsOf = keptUntilChanged(changesOf(deps.db), (environmentId, db = deps.db) => processorsForGateways(db, environmentId));
  return async (environmentId, db) => {
    const processors = await processorsOf(environmentId, db);
    const connected = processors.filter((p) => p.deleted_at === null);
    const deleted = processors.filter((p) => p.deleted_at !== null);
    const active = connected.flatMap(gatewaysOf);
    // The processor not deleted first, then the deleted ones newest first: the order a row that names no account finds them in (registry.ts).
    return { active, all: [...active, ...deleted.flatMap(gatewaysOf)] };
  };
}
