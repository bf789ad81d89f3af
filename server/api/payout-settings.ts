import { z } from 'zod';
import { fieldError } from '../http/problem';
import { route, type RouteDef } from '../http/route';
import { changePayoutSettings } from '../payments/payout-account';
import { presentPayoutSettings } from '../present/merchant-payout';
import { payoutSettingsOf } from '../store/merchant-payouts';
import { schedule, settingsIn } from '../schemas/payout-settings';
import { dateTime, livemode } from '../schemas/fields';

// Where and when your balance is paid out (docs/balance.md#payouts): your bank account (an
// IBAN, checked as a client's IBAN is) and the schedule. Also set by the operator with
// `npm run keys -- payouts`. A new IBAN replacing one holds the payouts until an owner
// confirms it or 72 hours pass (payments/payout-account.ts): a stolen secret key is held
// back as a taken-over dashboard session is. The dashboard's form parses with the same `settingsIn`
// (schemas/payout-settings.ts).

const settingsOut = z
  .object({
    livemode,
    iban: z.string().nullable().describe('Your bank account, electronic format; null until set'),
    account_holder_name: z.string().nullable().describe('Whose account it is, as your bank knows it; null until set'),
    schedule: schedule.describe('`daily`: a payout per currency each day (UTC) with money available; `weekly`: each ISO week; `manual`: only when you create one'),
    updated: dateTime.nullable().describe('When they were last set; null: never (the defaults)'),
  })
  .meta({ id: 'PayoutSettings', description: 'Where and when your balance is paid out' });

const EXAMPLE = { livemode: false, iban: 'ES9121000418450200051332', account_holder_name: 'Tienda Ejemplo SL', schedule: 'daily' as const, updated: '2026-01-15T10:30:00.000Z' };

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
      'Sets your bank account (an IBAN, checked for its country, length, format and mod-97 digits), whose it is (`account_holder_name`: required for live payouts paid by SEPA file, whose banks check it against the account) and your payout schedule. A new IBAN applies to payouts made from now on; one already on its way keeps its own. An IBAN replacing one already set holds every payout until an owner confirms it from the email each owner gets, or for 72 hours.',
    example: { request: { iban: 'ES91 2100 0418 4502 0005 1332', account_holder_name: 'Tienda Ejemplo SL', schedule: 'daily' }, response: EXAMPLE },
    summary: 'Set your payout bank account and schedule',
    tag: 'Balance',
    body: settingsIn,
    response: settingsOut,
    status: 200,
    async handler({ env, body, deps, db, req, baseUrl }) {
      const by = { userId: null, who: 'The API (a secret key)', ip: req.ip ?? null, baseUrl, language: 'en' as const };
      const outcome = await changePayoutSettings(db, deps, env.id, body, by);
      if (!outcome.ok) throw fieldError('iban', `a ${outcome.schedule} schedule needs a bank account`);
      return presentPayoutSettings(outcome.settings);
    },
  }),
];
