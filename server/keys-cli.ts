import { hostname, userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { loadConfig } from './config';
import { type ApiKey, createApiKey, endOlderSecret, findApiKeyByPublicKey, KEY_LABEL_MAX, listApiKeys, olderSecretUntil, revokeApiKey, rollApiKey } from './store/api-keys';
import { createEnvironment, findEnvironment, listEnvironments, type NewKeys, pairEnvironments, type PairRefusal, setRawCardNumbers, unpairEnvironment, updateEnvironment } from './store/environments';
import { openDatabase, Rollback, rollbackOn } from './store/db';
import { migrate } from './store/migrations';
import { parsePercent } from './domain/fees';
import { pricingOf, setPricing } from './store/balance';
import { rawCardNumbers } from './store/saved-cards';
import { payoutSettingsOf } from './store/merchant-payouts';
import { changePayoutSettings } from './payments/payout-account';
import type { Actor } from './store/audit';
import { PAYOUT_SCHEDULES } from './domain/merchant-payouts';
import { IBAN_PROBLEMS, ibanProblem, normaliseIban } from '../widget/fields/iban';
import { isText, TEXT_MESSAGES } from '../widget/fields/text';

const USAGE = `Usage:
  npm run keys -- create --name "Shop" [--live] [--allowed-origin https://shop.example]... [--pair-with <id>] [--json]
      (a sandbox, keys pk_test_…; --live: a live environment, keys pk_live_…, no test cards;
      --pair-with: created and paired at once, or, the pair refused, not created: exit 3)
  npm run keys -- list [--json]
  npm run keys -- set --environment <id> [--name "Shop"] [--allowed-origin <origin>]... [--rotate-webhook-secret]
      [--rate-limit <requests per second> | --rate-limit default] [--json]
  npm run keys -- pair --environment <id> --with <id> [--by <email>] [--json]
      (a shop's sandbox and live environments: the dashboard switches between them for a
      member of both, and saves their brand and time zone in both; refused, exit 3: two of
      the same mode, the demo, an environment already paired)
  npm run keys -- unpair --environment <id> [--by <email>] [--json]
      (ends the pair either half is in: no switch, each keeps its brand; refused, exit 3: in none)

An environment's API key pairs:
  npm run keys -- list --environment <id> [--json]
  npm run keys -- create --environment <id> --label "Shop server" [--json]     (the secret is shown once)
  npm run keys -- roll --key <public key> [--overlap-hours 24] [--json]        (the old secret works that long)
  npm run keys -- end-older --key <public key> [--json]                        (a rolled-out secret stops now)
  npm run keys -- revoke --key <public key> [--json]                           (at once)
  A roll with an overlap is refused (exit 3) while the key's older secret is still within
  its window: it keeps the time it was given. --overlap-hours 0 is always allowed.

An environment's fees and settlement delay (options left out keep their value):
  npm run keys -- pricing --environment <id> [--charge-percent 2.9] [--charge-fixed 25]
      [--refund-percent 0] [--refund-fixed 0] [--settlement-days 2] [--dispute-fixed 1500] [--json]
      (percentages with at most two decimals; fixed parts in the currency's minor units)

An environment's settings (read them without options):
  npm run keys -- settings --environment <id> [--raw-cards on|off] [--json]
      (--raw-cards: whether POST /v1/authorization/ takes raw card numbers; off: only the hosted page)

Where and when an environment's balance is paid out (docs/balance.md#payouts):
  npm run keys -- payouts --environment <id> [--iban <IBAN>] [--schedule daily|weekly|manual] [--by <email>] [--json]
      (as the dashboard's change: audited, mailed to every owner, payouts to a new account held 72 hours)

Pairing, unpairing and payout changes are audited in the environments' logs with the account
that ran the command (user@host) and, with --by, the person who asked.`;

const origin = z
  .url({ protocol: /^https?$/ })
  .transform((u) => new URL(u).origin)
  .describe('allowed origin');

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    name: { type: 'string' },
    environment: { type: 'string' },
    with: { type: 'string' },
    'pair-with': { type: 'string' },
    'allowed-origin': { type: 'string', multiple: true },
    'rotate-webhook-secret': { type: 'boolean' },
    'rate-limit': { type: 'string' },
    label: { type: 'string' },
    key: { type: 'string' },
    'overlap-hours': { type: 'string' },
    json: { type: 'boolean' },
    live: { type: 'boolean' },
    'charge-percent': { type: 'string' },
    'charge-fixed': { type: 'string' },
    'refund-percent': { type: 'string' },
    'refund-fixed': { type: 'string' },
    'settlement-days': { type: 'string' },
    'raw-cards': { type: 'string' },
    'dispute-fixed': { type: 'string' },
    iban: { type: 'string' },
    schedule: { type: 'string' },
    by: { type: 'string' },
  },
});

function fail(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}\n`);
  process.exit(2);
}

/** A rule said no and nothing changed (exit 3, apart from a wrong command's 2, so a script can tell). */
function refuse(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(3);
}

const PAIR_REFUSALS: Record<Exclude<PairRefusal, 'not_found'>, string> = {
  same_mode: 'a pair is one sandbox and one live environment',
  demo: 'the demo environment is never paired',
  already_paired: 'an environment is in one pair at most',
};

/** A pairing said no: an environment named that is not there (exit 2), or a pair rule (exit 3); `create` says it made nothing. */
function refusePair(refusal: PairRefusal, notFound: string, creating = false): never {
  if (refusal === 'not_found') fail(creating ? `not created: ${notFound}` : notFound);
  refuse(`${creating ? 'not created: ' : ''}not paired: ${PAIR_REFUSALS[refusal]}`);
}

/** `--label`: one line (the API's text rule: no NUL or other control character), trimmed, 1 to KEY_LABEL_MAX characters. */
function labelOption(text: string): string {
  const label = text.trim();
  if (!label) fail('--label must not be empty');
  if (!isText(label, 'line')) fail(`--label ${TEXT_MESSAGES.line}`);
  return label.length <= KEY_LABEL_MAX ? label : fail(`--label must be at most ${KEY_LABEL_MAX} characters`);
}

function print(value: Record<string, unknown>) {
  if (values.json) return void process.stdout.write(`${JSON.stringify(value)}\n`);
  for (const [k, v] of Object.entries(value)) process.stdout.write(`${k.padEnd(16)} ${Array.isArray(v) ? v.join(' ') : v}\n`);
}

/**
 * Who made a change, for the audit logs: no dashboard member, but the account that ran the
 * command on this machine, and the person `--by` names (an email), if given.
 */
function operator(): Actor & { name: string } {
  const by = values.by === undefined ? null : z.email().safeParse(values.by.trim());
  if (by && !by.success) fail(`--by ${values.by}: must be an email`);
  const account = `${userInfo().username}@${hostname()}`;
  return { userId: null, email: by?.data ?? null, ip: null, detail: { via: 'npm run keys', operator: account }, name: by?.data ?? account };
}

const origins = values['allowed-origin']?.map((o) => {
  const parsed = origin.safeParse(o);
  return parsed.success ? parsed.data : fail(`--allowed-origin ${o}: must be an http(s) origin`);
});

/** `--rate-limit`: a whole number of requests per second, or `default` for API_RATE_LIMIT (null). */
function rateLimitOption(text: string | undefined): number | null | undefined {
  if (text === undefined) return undefined;
  if (text === 'default') return null;
  const parsed = z.coerce.number().int().min(1).max(1_000_000).safeParse(text);
  return parsed.success ? parsed.data : fail(`--rate-limit ${text}: must be a whole number from 1 to 1000000, or default`);
}
const rateLimit = rateLimitOption(values['rate-limit']);

/** `--<name>`: a percentage with at most two decimals, or the current value. */
function percentOption(option: 'charge-percent' | 'refund-percent', current: bigint): bigint {
  const text = values[option];
  if (text === undefined) return current;
  return parsePercent(text) ?? fail(`--${option} ${text}: must be a percentage from 0 to 100 with at most two decimals`);
}

/** `--<name>`: a whole number from 0 to `max`, or the current value. */
function wholeOption(option: 'charge-fixed' | 'refund-fixed' | 'settlement-days' | 'dispute-fixed', current: number, max: number): number {
  const text = values[option];
  if (text === undefined) return current;
  const parsed = z.coerce.number().int().min(0).max(max).safeParse(text);
  return parsed.success ? parsed.data : fail(`--${option} ${text}: must be a whole number from 0 to ${max}`);
}

/** `--iban`: checked as a client's IBAN is (widget/fields/iban.ts), or the current one. */
function ibanOption(current: string | null): string | null {
  if (values.iban === undefined) return current;
  const iban = normaliseIban(values.iban);
  const problem = ibanProblem(iban);
  return problem ? fail(`--iban: ${IBAN_PROBLEMS[problem]}`) : iban;
}

/** `--schedule`: daily, weekly or manual, or the current one. */
function scheduleOption<S extends string>(current: S): (typeof PAYOUT_SCHEDULES)[number] | S {
  const text = values.schedule;
  if (text === undefined) return current;
  return PAYOUT_SCHEDULES.find((s) => s === text) ?? fail(`--schedule ${text}: must be daily, weekly or manual`);
}

const config = loadConfig();
const database = openDatabase(config);

/** A key's state as `list` prints it: revoked, or active with its older secret's expiry while it works. */
function keyState(key: ApiKey, now: Date): string {
  if (key.revoked_at) return `revoked ${key.revoked_at}`;
  const until = olderSecretUntil(key, now);
  return until ? `active, older secret until ${until}` : 'active';
}

async function keyNamed(publicKey: string | undefined) {
  if (!publicKey) fail('name the key with --key <public key>');
  return (await findApiKeyByPublicKey(database.db, publicKey)) ?? fail(`no key ${publicKey}`);
}
try {
  await migrate(database);
  const db = database.db;
  switch (positionals[0]) {
    case 'create': {
      if (values.environment !== undefined) {
        const environment = await findEnvironment(db, values.environment) ?? fail(`no environment ${values.environment}`);
        const label = labelOption(values.label ?? fail('create --environment needs --label'));
        print({ environment_id: environment.id, ...(await createApiKey(db, environment, label, new Date())) });
        break;
      }
      const name = values.name?.trim() || fail('create needs --name');
      const input = { name, allowedOrigins: origins, mode: values.live ? 'live' : 'sandbox', now: new Date() } as const;
      const partner = values['pair-with'];
      if (partner === undefined) {
        print({ ...(await createEnvironment(db, input)) });
        break;
      }
      // Checked before anything is written; then one transaction: a refused pair leaves no environment behind.
      const by = operator();
      const created = await rollbackOn<{ keys: NewKeys; pairId: string }, PairRefusal>(db, async (trx) => {
        const keys = await createEnvironment(trx, input);
        const paired = await pairEnvironments(trx, keys.environment_id, partner, input.now, by);
        if ('refused' in paired) throw new Rollback(paired.refused);
        return { keys, pairId: paired.pairId };
      });
      if (typeof created === 'string') refusePair(created, `no environment ${partner}`, true);
      print({ ...created.keys, pair_id: created.pairId });
      break;
    }
    case 'list': {
      if (values.environment !== undefined) {
        const keys = await listApiKeys(db, values.environment);
        if (values.json) process.stdout.write(`${JSON.stringify(keys)}\n`);
        else for (const k of keys) process.stdout.write(`${k.public_key}  ${keyState(k, new Date())}  ${k.label}\n`);
        break;
      }
      const rows = await listEnvironments(db);
      if (values.json) process.stdout.write(`${JSON.stringify(rows)}\n`);
      else for (const r of rows) process.stdout.write(`${r.id}  ${r.public_key}  ${r.name}\n`);
      break;
    }
    case 'set': {
      const id = values.environment ?? fail('set needs --environment');
      const name = values.name === undefined ? undefined : values.name.trim() || fail('--name must not be empty');
      const row = await updateEnvironment(db, id, {
        name,
        allowedOrigins: origins,
        rotateWebhookSecret: values['rotate-webhook-secret'],
        rateLimit,
      });
      if (!row) fail(`no environment ${id}`);
      print({
        environment_id: row.id,
        name: row.name,
        public_key: row.public_key,
        allowed_origins: row.allowed_origins,
        rate_limit: row.rate_limit ?? 'default',
        ...(values['rotate-webhook-secret'] ? { webhook_secret: row.webhook_secret } : {}),
      });
      break;
    }
    case 'pair': {
      const one = values.environment ?? fail('pair needs --environment');
      const other = values.with ?? fail('pair needs --with');
      const paired = await pairEnvironments(db, one, other, new Date(), operator());
      if ('refused' in paired) refusePair(paired.refused, `no environment ${one} or ${other}`);
      print({ pair_id: paired.pairId, environments: [one, other] });
      break;
    }
    case 'unpair': {
      const id = values.environment ?? fail('unpair needs --environment');
      const parted = await unpairEnvironment(db, id, new Date(), operator());
      if ('refused' in parted) {
        if (parted.refused === 'not_found') fail(`no environment ${id}`);
        refuse(`not unpaired: environment ${id} is in no pair`);
      }
      print({ unpaired: true, environments: parted.environments });
      break;
    }
    case 'roll': {
      const key = await keyNamed(values.key);
      const hours = z.coerce.number().min(0).max(24 * 30).safeParse(values['overlap-hours'] ?? '24');
      if (!hours.success) fail('--overlap-hours must be a number of hours from 0 to 720');
      const rolled = await rollApiKey(db, key.environment_id, key.id, hours.data * 3600_000, new Date());
      if (rolled.kind === 'gone') fail(`key ${key.public_key} is revoked`);
      if (rolled.kind === 'older_secret_working') {
        refuse(
          `not rolled: key ${key.public_key} was rolled recently and its older secret works until ${rolled.until}, as promised then; ` +
            'a roll with an overlap now would end it early. Roll with --overlap-hours 0 (the current secret stops now), ' +
            `or end the older secret first: npm run keys -- end-older --key ${key.public_key}`,
        );
      }
      // previous_expires_at: when the older secret still accepted stops (null: none is).
      print({ environment_id: key.environment_id, ...rolled.key, previous_expires_at: rolled.olderUntil });
      break;
    }
    case 'end-older': {
      const key = await keyNamed(values.key);
      if (!(await endOlderSecret(db, key.environment_id, key.id, new Date()))) refuse(`key ${key.public_key} has no older secret still working`);
      print({ environment_id: key.environment_id, id: key.id, label: key.label, public_key: key.public_key, older_secret_ended: true });
      break;
    }
    case 'revoke': {
      const key = await keyNamed(values.key);
      if (!(await revokeApiKey(db, key.environment_id, key.id, new Date()))) fail(`key ${key.public_key} is already revoked`);
      print({ environment_id: key.environment_id, id: key.id, label: key.label, public_key: key.public_key, revoked: true });
      break;
    }
    case 'pricing': {
      const environment = (await findEnvironment(db, values.environment ?? fail('pricing needs --environment'))) ?? fail(`no environment ${values.environment}`);
      const now = await pricingOf(db, environment.id);
      const next = {
        charge: { percentE2: percentOption('charge-percent', now.charge.percentE2), fixed: BigInt(wholeOption('charge-fixed', Number(now.charge.fixed), 1_000_000)) },
        refund: { percentE2: percentOption('refund-percent', now.refund.percentE2), fixed: BigInt(wholeOption('refund-fixed', Number(now.refund.fixed), 1_000_000)) },
        settlementDelayDays: wholeOption('settlement-days', now.settlementDelayDays, 365),
        disputeFixed: BigInt(wholeOption('dispute-fixed', Number(now.disputeFixed), 1_000_000)),
      };
      await setPricing(db, environment.id, next, new Date());
      const percent = (e2: bigint) => (Number(e2) / 100).toString();
      print({
        environment_id: environment.id,
        charge_percent: percent(next.charge.percentE2),
        charge_fixed: Number(next.charge.fixed),
        refund_percent: percent(next.refund.percentE2),
        refund_fixed: Number(next.refund.fixed),
        settlement_days: next.settlementDelayDays,
        dispute_fixed: Number(next.disputeFixed),
      });
      break;
    }
    case 'payouts': {
      const environment = (await findEnvironment(db, values.environment ?? fail('payouts needs --environment'))) ?? fail(`no environment ${values.environment}`);
      const now = await payoutSettingsOf(db, environment.id);
      const change = { iban: ibanOption(now.iban) ?? undefined, schedule: scheduleOption(now.schedule) };
      // The one use case the API and the dashboard call: audited, mailed to every owner, a new account held.
      const by = operator();
      const changed = await changePayoutSettings(db, { now: () => new Date() }, environment.id, change, {
        ...by,
        who: `npm run keys (${by.name})`,
        baseUrl: config.publicUrl ?? `http://localhost:${config.port}`,
        language: 'en',
      });
      if (!changed.ok) fail(`a ${changed.schedule} schedule needs --iban`);
      const { iban, schedule, payouts_held_until } = changed.settings;
      print({ environment_id: environment.id, iban, schedule, ...(payouts_held_until ? { payouts_held_until } : {}) });
      break;
    }
    case 'settings': {
      const environment = (await findEnvironment(db, values.environment ?? fail('settings needs --environment'))) ?? fail(`no environment ${values.environment}`);
      const raw = values['raw-cards'];
      if (raw !== undefined && raw !== 'on' && raw !== 'off') fail(`--raw-cards ${raw}: must be on or off`);
      if (raw !== undefined) await setRawCardNumbers(db, environment.id, raw === 'on');
      print({ environment_id: environment.id, raw_card_numbers: (await rawCardNumbers(db, environment.id)) ? 'on' : 'off' });
      break;
    }
    default:
      fail(positionals[0] ? `unknown command ${positionals[0]}` : 'missing command');
  }
} finally {
  await database.close();
}
