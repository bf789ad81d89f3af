import { hostname, userInfo } from 'node:os';
import { z } from 'zod';
import { DISPLAY_NAME_MAX } from '../domain/brand';
import { parsePercent } from '../domain/fees';
import { PAYOUT_SCHEDULES } from '../domain/merchant-payouts';
import { KEY_LABEL_MAX } from '../store/api-keys';
import type { Actor } from '../store/audit';
import { IBAN_PROBLEMS, ibanProblem, normaliseIban } from '../../widget/fields/iban';
import { isText, TEXT_MESSAGES } from '../../widget/fields/text';
import { parsedArgs, wrong } from './command';

// The keys CLI's options (cli/keys.ts) and the rule each value is read by: a wrong value
// is a wrong command (exit 2), before anything is written.

export const KEYS_OPTIONS = {
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
} as const;

export type KeysValues = ReturnType<typeof parsedArgs<typeof KEYS_OPTIONS>>['values'];

const origin = z
  .url({ protocol: /^https?$/ })
  .transform((u) => new URL(u).origin)
  .describe('allowed origin');

/** `--allowed-origin`s as origins, or undefined when none is given. */
export function originsOption(values: KeysValues): string[] | undefined {
  return values['allowed-origin']?.map((o) => {
    const parsed = origin.safeParse(o);
    return parsed.success ? parsed.data : wrong(`--allowed-origin ${o}: must be an http(s) origin`);
  });
}

/** `--<option>`: one line (the API's text rule: no NUL or other control character), trimmed, 1 to `max` characters. */
function lineOption(option: 'label' | 'name', text: string, max: number): string {
  const line = text.trim();
  if (!line) wrong(`--${option} must not be empty`);
  if (!isText(line, 'line')) wrong(`--${option} ${TEXT_MESSAGES.line}`);
  return line.length <= max ? line : wrong(`--${option} must be at most ${max} characters`);
}

/** `--label`: a key's label, 1 to KEY_LABEL_MAX characters of one line. */
export const labelOption = (text: string) => lineOption('label', text, KEY_LABEL_MAX);

/** `--name`: an environment's name, shown to customers as the merchant's: one line, as long as the dashboard's display name may be. */
export const nameOption = (text: string) => lineOption('name', text, DISPLAY_NAME_MAX);

/**
 * A number as a person writes it: digits, with `fraction` a decimal part. Never what
 * Number() also takes: a blank (0, so `--overlap-hours ""` from an unset variable would end
 * a secret at once), hexadecimal, an exponent.
 */
const written = (fraction = false) => z.string().regex(fraction ? /^\d+(\.\d+)?$/ : /^\d+$/).pipe(z.coerce.number());

/** `--overlap-hours`: hours from 0 to 720, 24 when not given. */
export function overlapHoursOption(text = '24'): number {
  const parsed = written(true).pipe(z.number().max(24 * 30)).safeParse(text);
  return parsed.success ? parsed.data : wrong(`--overlap-hours ${text}: must be a number of hours from 0 to 720`);
}

/** `--rate-limit`: a whole number of requests per second, or `default` for API_RATE_LIMIT (null). */
export function rateLimitOption(text: string | undefined): number | null | undefined {
  if (text === undefined) return undefined;
  if (text === 'default') return null;
  const parsed = written().pipe(z.number().min(1).max(1_000_000)).safeParse(text);
  return parsed.success ? parsed.data : wrong(`--rate-limit ${text}: must be a whole number from 1 to 1000000, or default`);
}

/** `--<name>`: a percentage with at most two decimals, or the current value. */
export function percentOption(values: KeysValues, option: 'charge-percent' | 'refund-percent', current: bigint): bigint {
  const text = values[option];
  if (text === undefined) return current;
  return parsePercent(text) ?? wrong(`--${option} ${text}: must be a percentage from 0 to 100 with at most two decimals`);
}

/** `--<name>`: a whole number from 0 to `max`, or the current value. */
export function wholeOption(values: KeysValues, option: 'charge-fixed' | 'refund-fixed' | 'settlement-days' | 'dispute-fixed', current: number, max: number): number {
  const text = values[option];
  if (text === undefined) return current;
  const parsed = written().pipe(z.number().max(max)).safeParse(text);
  return parsed.success ? parsed.data : wrong(`--${option} ${text}: must be a whole number from 0 to ${max}`);
}

/** `--iban`: checked as a client's IBAN is (widget/fields/iban.ts), or the current one. */
export function ibanOption(values: KeysValues, current: string | null): string | null {
  if (values.iban === undefined) return current;
  const iban = normaliseIban(values.iban);
  const problem = ibanProblem(iban);
  return problem ? wrong(`--iban: ${IBAN_PROBLEMS[problem]}`) : iban;
}

/** `--schedule`: daily, weekly or manual, or the current one. */
export function scheduleOption<S extends string>(values: KeysValues, current: S): (typeof PAYOUT_SCHEDULES)[number] | S {
  const text = values.schedule;
  if (text === undefined) return current;
  return PAYOUT_SCHEDULES.find((s) => s === text) ?? wrong(`--schedule ${text}: must be daily, weekly or manual`);
}

/**
 * Who made a change, for the audit logs: no dashboard member, but the account that ran the
 * command on this machine, and the person `--by` names (an email), if given.
 */
export function operator(values: KeysValues): Actor & { name: string } {
  const by = values.by === undefined ? null : z.email().safeParse(values.by.trim());
  if (by && !by.success) wrong(`--by ${values.by}: must be an email`);
  const account = `${userInfo().username}@${hostname()}`;
  return { userId: null, email: by?.data ?? null, ip: null, detail: { via: 'npm run keys', operator: account }, name: by?.data ?? account };
}
