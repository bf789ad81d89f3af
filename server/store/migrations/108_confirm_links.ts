import { type Migration, sql } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// A charge of a saved card that the issuer declined because the customer must authenticate
// (Stripe's `authentication_required`, off-session) gets a link the merchant sends to the
// customer: the hosted page `/pay/confirm/{token}/` (docs/processors.md "Payments that need
// the customer"). Its token and expiry are the sale's own, as a save page's are its
// authorization's: one link per sale, and nothing to join when the sale is presented.
export const migration = (_d: Def): Migration => ({
  async up(db) {
    await db.schema.alterTable('sales').addColumn('confirm_token', 'text').execute();
    await db.schema.alterTable('sales').addColumn('confirm_expires_at', 'text').execute();
    await sql`create unique index sales_confirm_token on sales (confirm_token) where confirm_token is not null`.execute(db);
  },
});
