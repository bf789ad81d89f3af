import { type Config, loadConfig } from '../config';
import { changePayoutSettings } from '../payments/payout-account';
import { type ApiKey, createApiKey, endOlderSecret, findApiKeyByPublicKey, listApiKeys, olderSecretUntil, revokeApiKey, rollApiKey } from '../store/api-keys';
import { pricingOf, setPricing } from '../store/balance';
import { type Db, openDatabase, Rollback, rollbackOn } from '../store/db';
import { createEnvironment, findEnvironment, listEnvironments, type NewKeys, pairEnvironments, type PairRefusal, setRawCardNumbers, unpairEnvironment, updateEnvironment } from '../store/environments';
import { payoutSettingsOf } from '../store/merchant-payouts';
import { migrate } from '../store/migrations';
import { rawCardNumbers } from '../store/saved-cards';
import { type CliIo, type Command, parsedArgs, refused, wrong } from './command';
import { ibanOption, KEYS_OPTIONS, type KeysValues, labelOption, nameOption, operator, originsOption, overlapHoursOption, percentOption, rateLimitOption, scheduleOption, wholeOption } from './keys-options';

// `npm run keys`: environments, their API keys, fees, settings and payout account, written
// straight into the database a service runs on (docs/operations.md).

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


const PAIR_REFUSALS: Record<Exclude<PairRefusal, 'not_found'>, string> = {
  same_mode: 'a pair is one sandbox and one live environment',
  demo: 'the demo environment is never paired',
  already_paired: 'an environment is in one pair at most',
};

/** A pairing said no: an environment named that is not there (exit 2), or a pair rule (exit 3); `create` says it made nothing. */
function refusePair(refusal: PairRefusal, notFound: string, creating = false): never {
  if (refusal === 'not_found') wrong(creating ? `not created: ${notFound}` : notFound);
  refused(`${creating ? 'not created: ' : ''}not paired: ${PAIR_REFUSALS[refusal]}`);
}

/** One command's run: its options, the database, and how it prints (`--json`: one JSON line). */
interface Run {
  values: KeysValues;
  /** `--allowed-origin`s and `--rate-limit`, read before the database was opened. */
  origins: string[] | undefined;
  rateLimit: number | null | undefined;
  db: Db;
  config: Config;
  io: CliIo;
  print(value: Record<string, unknown>): void;
}

/** A key's state as `list` prints it: revoked, or active with its older secret's expiry while it works. */
function keyState(key: ApiKey, now: Date): string {
  if (key.revoked_at) return `revoked ${key.revoked_at}`;
  const until = olderSecretUntil(key, now);
  return until ? `active, older secret until ${until}` : 'active';
}

async function keyNamed({ db }: Run, publicKey: string | undefined) {
  if (!publicKey) wrong('name the key with --key <public key>');
  return (await findApiKeyByPublicKey(db, publicKey)) ?? wrong(`no key ${publicKey}`);
}

async function environmentNamed({ db, values }: Run, command: string) {
  const id = values.environment ?? wrong(`${command} needs --environment`);
  return (await findEnvironment(db, id)) ?? wrong(`no environment ${id}`);
}

async function create(run: Run): Promise<void> {
  const { db, values, print } = run;
  if (values.environment !== undefined) {
    const environment = (await findEnvironment(db, values.environment)) ?? wrong(`no environment ${values.environment}`);
    const label = labelOption(values.label ?? wrong('create --environment needs --label'));
    print({ environment_id: environment.id, ...(await createApiKey(db, environment, label, new Date())) });
    return;
  }
  const name = nameOption(values.name ?? wrong('create needs --name'));
  const input = { name, allowedOrigins: run.origins, mode: values.live ? 'live' : 'sandbox', now: new Date() } as const;
  const partner = values['pair-with'];
  if (partner === undefined) return print({ ...(await createEnvironment(db, input)) });
  // Checked before anything is written; then one transaction: a refused pair leaves no environment behind.
  const by = operator(values);
  const created = await rollbackOn<{ keys: NewKeys; pairId: string }, PairRefusal>(db, async (trx) => {
    const keys = await createEnvironment(trx, input);
    const paired = await pairEnvironments(trx, keys.environment_id, partner, input.now, by);
    if ('refused' in paired) throw new Rollback(paired.refused);
    return { keys, pairId: paired.pairId };
  });
  if (typeof created === 'string') refusePair(created, `no environment ${partner}`, true);
  print({ ...created.keys, pair_id: created.pairId });
}

async function list(run: Run): Promise<void> {
  const { db, values, io } = run;
  if (values.environment !== undefined) {
    const keys = await listApiKeys(db, (await environmentNamed(run, 'list')).id);
    if (values.json) io.stdout(`${JSON.stringify(keys)}\n`);
    else for (const k of keys) io.stdout(`${k.public_key}  ${keyState(k, new Date())}  ${k.label}\n`);
    return;
  }
  const rows = await listEnvironments(db);
  if (values.json) io.stdout(`${JSON.stringify(rows)}\n`);
  else for (const r of rows) io.stdout(`${r.id}  ${r.public_key}  ${r.name}\n`);
}

async function set({ db, values, origins, rateLimit, print }: Run): Promise<void> {
  const id = values.environment ?? wrong('set needs --environment');
  const name = values.name === undefined ? undefined : nameOption(values.name);
  const row = await updateEnvironment(db, id, {
    name,
    allowedOrigins: origins,
    rotateWebhookSecret: values['rotate-webhook-secret'],
    rateLimit,
  });
  if (!row) wrong(`no environment ${id}`);
  print({
    environment_id: row.id,
    name: row.name,
    public_key: row.public_key,
    allowed_origins: row.allowed_origins,
    rate_limit: row.rate_limit ?? 'default',
    ...(values['rotate-webhook-secret'] ? { webhook_secret: row.webhook_secret } : {}),
  });
}

async function pair({ db, values, print }: Run): Promise<void> {
  const one = values.environment ?? wrong('pair needs --environment');
  const other = values.with ?? wrong('pair needs --with');
  const paired = await pairEnvironments(db, one, other, new Date(), operator(values));
  if ('refused' in paired) refusePair(paired.refused, `no environment ${one} or ${other}`);
  print({ pair_id: paired.pairId, environments: [one, other] });
}

async function unpair({ db, values, print }: Run): Promise<void> {
  const id = values.environment ?? wrong('unpair needs --environment');
  const parted = await unpairEnvironment(db, id, new Date(), operator(values));
  if ('refused' in parted) {
    if (parted.refused === 'not_found') wrong(`no environment ${id}`);
    refused(`not unpaired: environment ${id} is in no pair`);
  }
  print({ unpaired: true, environments: parted.environments });
}

async function roll(run: Run): Promise<void> {
  const key = await keyNamed(run, run.values.key);
  const hours = overlapHoursOption(run.values['overlap-hours']);
  const rolled = await rollApiKey(run.db, key.environment_id, key.id, hours * 3600_000, new Date());
  if (rolled.kind === 'gone') wrong(`key ${key.public_key} is revoked`);
  if (rolled.kind === 'older_secret_working') {
    refused(
      `not rolled: key ${key.public_key} was rolled recently and its older secret works until ${rolled.until}, as promised then; ` +
        'a roll with an overlap now would end it early. Roll with --overlap-hours 0 (the current secret stops now), ' +
        `or end the older secret first: npm run keys -- end-older --key ${key.public_key}`,
    );
  }
  // previous_expires_at: when the older secret still accepted stops (null: none is).
  run.print({ environment_id: key.environment_id, ...rolled.key, previous_expires_at: rolled.olderUntil });
}

async function endOlder(run: Run): Promise<void> {
  const key = await keyNamed(run, run.values.key);
  if (!(await endOlderSecret(run.db, key.environment_id, key.id, new Date()))) refused(`key ${key.public_key} has no older secret still working`);
  run.print({ environment_id: key.environment_id, id: key.id, label: key.label, public_key: key.public_key, older_secret_ended: true });
}

async function revoke(run: Run): Promise<void> {
  const key = await keyNamed(run, run.values.key);
  if (!(await revokeApiKey(run.db, key.environment_id, key.id, new Date()))) wrong(`key ${key.public_key} is already revoked`);
  run.print({ environment_id: key.environment_id, id: key.id, label: key.label, public_key: key.public_key, revoked: true });
}

async function pricing(run: Run): Promise<void> {
  const { db, values } = run;
  const environment = await environmentNamed(run, 'pricing');
  const now = await pricingOf(db, environment.id);
  const next = {
    charge: { percentE2: percentOption(values, 'charge-percent', now.charge.percentE2), fixed: BigInt(wholeOption(values, 'charge-fixed', Number(now.charge.fixed), 1_000_000)) },
    refund: { percentE2: percentOption(values, 'refund-percent', now.refund.percentE2), fixed: BigInt(wholeOption(values, 'refund-fixed', Number(now.refund.fixed), 1_000_000)) },
    settlementDelayDays: wholeOption(values, 'settlement-days', now.settlementDelayDays, 365),
    disputeFixed: BigInt(wholeOption(values, 'dispute-fixed', Number(now.disputeFixed), 1_000_000)),
  };
  await setPricing(db, environment.id, next, new Date());
  const percent = (e2: bigint) => (Number(e2) / 100).toString();
  run.print({
    environment_id: environment.id,
    charge_percent: percent(next.charge.percentE2),
    charge_fixed: Number(next.charge.fixed),
    refund_percent: percent(next.refund.percentE2),
    refund_fixed: Number(next.refund.fixed),
    settlement_days: next.settlementDelayDays,
    dispute_fixed: Number(next.disputeFixed),
  });
}

async function payouts(run: Run): Promise<void> {
  const { db, values, config } = run;
  const environment = await environmentNamed(run, 'payouts');
  const now = await payoutSettingsOf(db, environment.id);
  const change = { iban: ibanOption(values, now.iban) ?? undefined, schedule: scheduleOption(values, now.schedule) };
  // The one use case the API and the dashboard call: audited, mailed to every owner, a new account held.
  const by = operator(values);
  const changed = await changePayoutSettings(db, { now: () => new Date() }, environment.id, change, {
    ...by,
    who: `npm run keys (${by.name})`,
    baseUrl: config.publicUrl ?? `http://localhost:${config.port}`,
    language: 'en',
  });
  if (!changed.ok) wrong(`a ${changed.schedule} schedule needs --iban`);
  const { iban, schedule, payouts_held_until } = changed.settings;
  run.print({ environment_id: environment.id, iban, schedule, ...(payouts_held_until ? { payouts_held_until } : {}) });
}

async function settings(run: Run): Promise<void> {
  const environment = await environmentNamed(run, 'settings');
  const raw = run.values['raw-cards'];
  if (raw !== undefined && raw !== 'on' && raw !== 'off') wrong(`--raw-cards ${raw}: must be on or off`);
  if (raw !== undefined) await setRawCardNumbers(run.db, environment.id, raw === 'on');
  run.print({ environment_id: environment.id, raw_card_numbers: (await rawCardNumbers(run.db, environment.id)) ? 'on' : 'off' });
}

const COMMANDS: Record<string, (run: Run) => Promise<void>> = { create, list, set, pair, unpair, roll, 'end-older': endOlder, revoke, pricing, payouts, settings };

export const keysCommand: Command = {
  usage: USAGE,
  async run(argv, io) {
    const { positionals, values } = parsedArgs(argv, KEYS_OPTIONS);
    const command = COMMANDS[positionals[0] ?? ''] ?? wrong(positionals[0] ? `unknown command ${positionals[0]}` : 'missing command');
    // Wrong values are wrong commands before anything is written: these before the database
    // is opened, the rest as each command reads them.
    const origins = originsOption(values);
    const rateLimit = rateLimitOption(values['rate-limit']);
    const config = loadConfig(io.env);
    const database = openDatabase(config);
    const print = (value: Record<string, unknown>) => {
      if (values.json) return io.stdout(`${JSON.stringify(value)}\n`);
      for (const [k, v] of Object.entries(value)) io.stdout(`${k.padEnd(16)} ${Array.isArray(v) ? v.join(' ') : v}\n`);
    };
    try {
      await migrate(database);
      await command({ values, origins, rateLimit, db: database.db, config, io, print });
    } finally {
      await database.close();
    }
  },
};
