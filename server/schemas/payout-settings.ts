import { z } from 'zod';
import { accountHolderName, ibanFields } from './client-objects';

// What PATCH /v1/payout_settings/ takes, and the dashboard's bank account form parses with
// (dashboard/payout-account-routes.ts): one schema, so both check an IBAN the same way.

/** How often payouts are made. */
export const schedule = z.enum(['daily', 'weekly', 'manual']);

export const settingsIn = z
  .strictObject({
    iban: ibanFields.shape.iban.optional(),
    account_holder_name: accountHolderName.optional(),
    schedule: schedule.optional().describe('`daily`, `weekly` or `manual`; a schedule other than `manual` needs an IBAN'),
  })
  .meta({ id: 'PayoutSettingsInput', description: 'Fields to change; those left out keep their value' });
