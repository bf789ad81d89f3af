import { z } from 'zod';
import { fieldError } from '../http/problem';
import { route, type RouteDef } from '../http/route';
import { presentPayoutSettings } from '../present/merchant-payout';
import { payoutSettingsOf, setPayoutSettings } from '../store/merchant-payouts';
import { ibanFields } from './client-objects';
import { dateTime, livemode } from './fields';

// Where and when your balance is paid out (docs/balance.md#payouts): your bank account (an
// IBAN, checked as a client's IBAN is) and the schedule. Also set by the operator with
// `npm run keys -- payouts`.

const schedule = z.enum(['daily', 'weekly', 'manual']);

const settingsOut = z
  .object({
    livemode,
    iban: z.string().nullable().describe('Your bank account, electronic format; null until set'),
    schedule: schedule.describe('`daily`: a payout per currency each day (UTC) with money available; `weekly`: each ISO week; `manual`: only when you create one'),
    updated: dateTime.nullable().describe('When they were last set; null: never (the defaults)'),
  })
  .meta({ id: 'PayoutSettings', description: 'Where and when your balance is paid out' });

const settingsIn = z
  .strictObject({
    iban: ibanFields.shape.iban.optional(),
    schedule: schedule.optional().describe('`daily`, `weekly` or `manual`; a schedule other than `manual` needs an IBAN'),
  })
  .meta({ id: 'PayoutSettingsInput', description: 'Fields to change; those left out keep their value' });

const EXAMPLE = { livemode: false, iban: 'ES9121000418450200051332', schedule: 'daily' as const, updated: '2026-01-15T10:30:00.000Z' };

export const payoutSettingsRoutes = (): RouteDef[] => [
  route({
    method: 'get',
    path: '/payout_settings/',
    operationId: 'getPayoutSettings',
    description: 'Your bank account and payout schedule. Until set: no IBAN and the `manual` schedule.',
    example: { response: EXAMPLE },
    summary: 'Get your payout bank account and schedule',
    tag: 'Balance',
    response: settingsOut,
    status: 200,
    async handler({ env, db }) {
      return presentPayoutSettings(await payoutSettingsOf(db, env.id));
    },
  }),
  route({
    method: 'patch',
    path: '/payout_settings/',
    operationId: 'updatePayoutSettings',
    description:
      'Sets your bank account (an IBAN, checked for its country, length, format and mod-97 digits) and your payout schedule. A new IBAN applies to payouts made from now on; one already on its way keeps its own.',
    example: { request: { iban: 'ES91 2100 0418 4502 0005 1332', schedule: 'daily' }, response: EXAMPLE },
    summary: 'Set your payout bank account and schedule',
    tag: 'Balance',
    body: settingsIn,
    response: settingsOut,
    status: 200,
    async handler({ env, body, deps, db }) {
      const now = await payoutSettingsOf(db, env.id);
      const next = { iban: body.iban ?? now.iban, schedule: body.schedule ?? now.schedule };
      if (next.schedule !== 'manual' && !next.iban) throw fieldError('iban', `a ${next.schedule} schedule needs a bank account`);
      return presentPayoutSettings(await setPayoutSettings(db, env.id, next, deps.now()));
    },
  }),
];
