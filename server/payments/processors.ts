import type { Deps } from '../deps';
import {
  changeProcessor as writeChange,
  connectedOfType,
  deleteProcessor,
  getProcessor,
  insertProcessor,
  type ProcessorCredentials,
  processorsForGateways,
  type RedsysCredentials,
  type StoredProcessor,
} from '../store/processors';
import type { ProcessorType } from '../store/schema';
import { changeOf, modeErrors, type ProcessorChangeInput, type ProcessorInput } from './processor-input';
import { replacedForTestsOnly, stripeApiUrl } from './processor-urls';
import { checkRedsysTerminal } from './redsys-connect';
import { REDSYS_BIZUM_ID, REDSYS_CARD_ID } from './redsys/gateway';
import { firstSweep } from './processor-sweep';
import { STRIPE_CARD_ID } from './stripe/gateway';
import { checkStripeKey } from './stripe/key-check';

// Connecting a merchant's own processor account to an environment, replacing its keys, and
// disconnecting it: one copy of the steps for the API (api/processors.ts) and the
// dashboard. Every rule that needs no processor is checked first (the key's mode against
// the environment's, one processor of a type); then the key is checked with one call to the
// processor, outside any database transaction; only a key it accepted is stored. Each
// refusal is a named result, which the API answers as problem+json and the dashboard as a
// message. Nothing here logs a credential: lines name the processor's id and type only.

/** The gateway ids each type of processor brings, the same in every environment (like the seeded gateways'). */
export const PROCESSOR_GATEWAY_IDS: Record<ProcessorType, readonly string[]> = { stripe: [STRIPE_CARD_ID], redsys: [REDSYS_CARD_ID, REDSYS_BIZUM_ID] };

/** Where the processor posts its events for this processor (api/processor-events.ts). */
export const processorWebhookUrl = (baseUrl: string, id: string): string => `${baseUrl}/processors/${id}/events/`;

export interface ProcessorEnvironment {
  id: string;
  live: boolean;
}

export type ProcessorOutcome =
  | { ok: true; processor: StoredProcessor }
  /** A field at fault: a key of the other mode, or a key the processor refused. */
  | { ok: false; problem: 'invalid'; errors: { path: string; message: string }[] }
  /** The environment already has a processor of this type. */
  | { ok: false; problem: 'taken'; type: ProcessorType }
  /** The processor could not be asked: nothing was stored. */
  | { ok: false; problem: 'unreachable'; message: string }
  /** A live environment, while the processors' URLs point at a test double (STRIPE_API_URL, REDSYS_URL… without PROCESSOR_URLS_IN_LIVE). */
  | { ok: false; problem: 'urls_in_live' }
  /** Another change of the same processor was written meanwhile: nothing was. */
  | { ok: false; problem: 'changed' };

const invalid = (errors: { path: string; message: string }[]): ProcessorOutcome => ({ ok: false, problem: 'invalid', errors });

/** Asks Stripe whether the key works: undefined when it does, else the outcome to answer. */
async function stripeKeyRefusal(deps: Deps, env: ProcessorEnvironment, secretKey: string): Promise<ProcessorOutcome | undefined> {
  const check = await checkStripeKey({ secretKey, apiUrl: stripeApiUrl(deps.config, env.live), timeoutMs: deps.config.gatewayTimeoutMs });
  if (check.ok) return undefined;
  deps.log.warn({ environment: env.id, reason: check.reason }, 'processor key check failed');
  if (check.reason === 'refused') return invalid([{ path: 'secret_key', message: check.message }]);
  return { ok: false, problem: 'unreachable', message: check.message };
}

/** Asks Redsys about the terminal: its credentials with whether the query service is enabled, else the outcome to answer. */
async function checkedRedsys(deps: Deps, env: ProcessorEnvironment, terminal: Omit<RedsysCredentials, 'query_service'>): Promise<RedsysCredentials | ProcessorOutcome> {
  const check = await checkRedsysTerminal(deps.config, env.live, terminal);
  if (check.ok) {
    deps.log.info({ environment: env.id, query_service: check.queryService }, 'redsys terminal checked');
    return { ...terminal, query_service: check.queryService };
  }
  deps.log.warn({ environment: env.id, reason: check.reason }, 'processor key check failed');
  return check.reason === 'refused' ? invalid(check.errors) : { ok: false, problem: 'unreachable', message: check.message };
}

/** The credentials to store for a connect, each checked with its processor; else the outcome to answer. */
async function checkedCredentials(deps: Deps, env: ProcessorEnvironment, input: ProcessorInput): Promise<ProcessorCredentials | ProcessorOutcome> {
  if (env.live && replacedForTestsOnly(deps.config)) return { ok: false, problem: 'urls_in_live' };
  if (input.type === 'redsys') {
    const { type: _type, ...terminal } = input;
    return checkedRedsys(deps, env, terminal);
  }
  const refused = await stripeKeyRefusal(deps, env, input.secret_key);
  return refused ?? { secret_key: input.secret_key, webhook_secret: input.webhook_secret, publishable_key: input.publishable_key };
}

const isOutcome = (x: ProcessorCredentials | ProcessorOutcome): x is ProcessorOutcome => 'ok' in x;

export async function connectProcessor(deps: Deps, env: ProcessorEnvironment, input: ProcessorInput): Promise<ProcessorOutcome> {
  const modes = modeErrors(input.type, input, env.live);
  if (modes.length) return invalid(modes);
  const db = deps.database.db;
  // Before asking the processor: a second one of a type is refused without a call.
  if (await connectedOfType(db, env.id, input.type)) return { ok: false, problem: 'taken', type: input.type };
  const credentials = await checkedCredentials(deps, env, input);
  if (isOutcome(credentials)) return credentials;
  const statement_descriptor = input.type === 'stripe' ? input.statement_descriptor : null;
  // The unique index decides between two connects that both passed the check above.
  const now = deps.now();
  const processor = await insertProcessor(db, env.id, { type: input.type, credentials, statement_descriptor, sweep_due_at: firstSweep(now) }, now);
  if (processor === 'taken') return { ok: false, problem: 'taken', type: input.type };
  deps.log.info({ environment: env.id, processor: processor.id, type: processor.type }, 'processor connected');
  return { ok: true, processor };
}

/** A change's credentials, checked with the processor when they change what it is asked with; else the outcome to answer. */
async function changedCredentials(deps: Deps, env: ProcessorEnvironment, p: StoredProcessor, keys: Record<string, unknown>): Promise<Partial<ProcessorCredentials> | ProcessorOutcome> {
  if (keys.secret_key === undefined && keys.signature_version === undefined) return keys;
  if (env.live && replacedForTestsOnly(deps.config)) return { ok: false, problem: 'urls_in_live' };
  if (p.type === 'stripe') return (await stripeKeyRefusal(deps, env, keys.secret_key as string)) ?? keys;
  const stored = (await processorsForGateways(deps.database.db, env.id)).find((x) => x.id === p.id);
  if (stored?.type !== 'redsys') return { ok: false, problem: 'changed' };
  const { query_service: _old, ...terminal } = stored.credentials;
  return checkedRedsys(deps, env, { ...terminal, ...keys });
}

/** Undefined: no such processor in the environment (or it was deleted). */
export async function changeProcessor(deps: Deps, env: ProcessorEnvironment, id: string, input: ProcessorChangeInput): Promise<ProcessorOutcome | undefined> {
  const db = deps.database.db;
  const current = await getProcessor(db, env.id, id);
  if (!current) return undefined;
  const read = changeOf(current.type, input);
  if (!read.ok) return invalid(read.errors);
  const modes = modeErrors(current.type, read.change, env.live);
  if (modes.length) return invalid(modes);
  const { statement_descriptor, ...keys } = read.change as Record<string, unknown> & { statement_descriptor?: string | null };
  const defined = Object.fromEntries(Object.entries(keys).filter(([, v]) => v !== undefined));
  const credentials = await changedCredentials(deps, env, current, defined);
  if (isOutcome(credentials as ProcessorCredentials)) return credentials as ProcessorOutcome;
  const changed = await writeChange(db, env.id, id, { credentials: credentials as Partial<ProcessorCredentials>, statement_descriptor }, deps.now());
  if (changed === undefined) return undefined;
  if (changed === 'changed') return { ok: false, problem: 'changed' };
  deps.log.info({ environment: env.id, processor: id, fields: Object.keys(input).filter((k) => input[k as keyof ProcessorChangeInput] !== undefined) }, 'processor changed');
  return { ok: true, processor: changed };
}

/** New payments stop using it at once; its credentials stay for what it already took. False: no such processor. */
export async function disconnectProcessor(deps: Deps, environmentId: string, id: string): Promise<boolean> {
  const done = await deleteProcessor(deps.database.db, environmentId, id, deps.now());
  if (done) deps.log.info({ environment: environmentId, processor: id }, 'processor disconnected');
  return done;
}
