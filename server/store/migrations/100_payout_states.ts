import { type Migration, sql } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// Payouts by SEPA file (issue 46; docs/balance.md#payout-files). Their states follow the
// money: `in_transit` (in a file that was downloaded for the bank) and `returned` (paid,
// then sent back by the creditor's bank) join pending, paid and failed, for the merchant's
// payouts and the wallets' payouts to IBANs (transfers). And the creditor's name, which a
// file must carry and banks check against the account: the account holder's name of the
// merchant's payout settings (copied onto each payout when it is made, as its IBAN is) and
// of each client IBAN. Null where nobody has given it yet.
const STATUSES = ['pending', 'in_transit', 'paid', 'returned', 'failed'];

export const migration = (d: Def): Migration => ({
  async up(db) {
    await db.schema.alterTable('merchant_payout_settings').addColumn('account_holder_name', 'text').execute();
    await db.schema.alterTable('merchant_payouts').addColumn('account_holder_name', 'text').execute();
    await db.schema.alterTable('client_ibans').addColumn('account_holder_name', 'text').execute();
    if (d.engine !== 'postgres') return;
    const allowed = sql.join(STATUSES.map((s) => sql.lit(s)));
    for (const table of ['merchant_payouts', 'transfers']) {
      const name = sql.id(`${table}_status_check`);
      await sql`alter table ${sql.table(table)} drop constraint ${name}`.execute(db);
      await sql`alter table ${sql.table(table)} add constraint ${name} check (status in (${allowed}))`.execute(db);
    }
  },
});
