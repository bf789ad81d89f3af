import { hostname, userInfo } from 'node:os';
import { z } from 'zod';
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

/** `--label`: one line (the API's text rule: no NUL or other control character), trimmed, 1 to KEY_LABEL_MAX characters. */
export function labelOption(text: string): string {
  const label = text.trim();
  if (!label) wrong('--label must not be empty');
  if (!isText(label, 'line')) wrong(`--label ${TEXT_MESSAGES.line}`);
  return label.length <= KEY_LABEL_MAX ? label : wrong(`--label must be at most ${KEY_LABEL_MAX} characters`);
}

/** `--rate-limit`: a whole number of requests per second, or `default` for API_RATE_LIMIT (null). */
export function rateLimitOption(text: string | undefined): number | null | undefined {
  if (text === undefined) return undefined;
  if (text === 'default') return null;
  const parsed = z.coerce.number().int().min(1).max(1_000_000).safeParse(text);
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
  const parsed = z.coerce.number().int().min(0).max(max).safeParse(text);
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
