import { type Migration, Migrator } from 'kysely';
import type { Database, Db } from '../db';
import { appliedMigrations } from '../health';
import { type Def, dialect } from './dialect';
import { migration as m001 } from './001_foundation';
import { migration as m002 } from './002_payments';
import { migration as m003 } from './003_notifications';
import { migration as m004 } from './004_gateway_calls';
import { migration as m005 } from './005_clients';
import { migration as m006 } from './006_subscriptions';
import { migration as m007 } from './007_wallets';
import { migration as m008 } from './008_source_charges';
import { migration as m009 } from './009_product_currency_optional';
import { migration as m010 } from './010_unknown_outcomes';
import { migration as m020 } from './020_sale_amounts_in_flight';
import { migration as m021 } from './021_hold_expiry';
import { migration as m022 } from './022_wallet_receivable';
import { migration as m023 } from './023_source_reservations';
import { migration as m025 } from './025_rate_limits';
import { migration as m026 } from './026_retention_indexes';
import { migration as m030 } from './030_dashboard_accounts';
import { migration as m031 } from './031_api_keys';
import { migration as m040 } from './040_totp';
import { migration as m045 } from './045_late_payments';
import { migration as m050 } from './050_event_deliveries';
import { migration as m060 } from './060_authentication';
import { migration as m061 } from './061_return_secret';
import { migration as m065 } from './065_receipts';
import { migration as m066 } from './066_branding';
import { migration as m070 } from './070_balance';
import { migration as m075 } from './075_status_checks';
import { migration as m080 } from './080_source_sales';
import { migration as m081 } from './081_balance_sources';
import { migration as m082 } from './082_environment_mode';
import { migration as m083 } from './083_disputes';
import { migration as m084 } from './084_merchant_payouts';
import { migration as m085 } from './085_save_card';
import { migration as m086 } from './086_dashboard_figures';
import { migration as m088 } from './088_one_store';
import { migration as m089 } from './089_card_steps';
import { migration as m091 } from './091_search_indexes';
import { migration as m092 } from './092_key_checks';
import { migration as m093 } from './093_operation_movements';
import { migration as m094 } from './094_key_reveals';
import { migration as m095 } from './095_invite_proof';
import { migration as m096 } from './096_password_resets';
import { migration as m098 } from './098_gateway_call_processor_id';
import { migration as m099 } from './099_processors';
import { migration as m100 } from './100_payout_states';
import { migration as m101 } from './101_payout_files';
import { migration as m102 } from './102_payment_search';
import { migration as m103 } from './103_processor_events';
import { migration as m104 } from './104_processor_customers';
import { migration as m105 } from './105_processor_redsys';
import { migration as m106 } from './106_processor_deliveries';
import { migration as m107 } from './107_sale_processor_settlements';
import { migration as m108 } from './108_confirm_links';
import { migration as m109 } from './109_redsys_orders';
import { migration as m110 } from './110_payout_account_holds';
import { migration as m115 } from './115_sale_status';
import { migration as m116 } from './116_saved_views';
import { migration as m117 } from './117_redsys_operations';
import { migration as m120 } from './120_time_zone';
import { migration as m121 } from './121_team_notifications';
import { migration as m122 } from './122_customer_emails';
import { migration as m123 } from './123_signup_authorization_index';
import { migration as m125 } from './125_payment_page_indexes';
import { migration as m126 } from './126_api_requests';
import { migration as m127 } from './127_payment_notes';
import { migration as m128 } from './128_dashboard_indexes';
import { migration as m129 } from './129_environment_pairs';
import { migration as m130 } from './130_customer_payers_index';
import { migration as m131 } from './131_processor_changes';
import { migration as m132 } from './132_payers';
import { migration as m133 } from './133_endpoint_changes';
import { migration as m134 } from './134_customer_key_index';
import { migration as m135 } from './135_rate_limit_shares';
import { migration as m136 } from './136_attempt_endpoint';
import { migration as m137 } from './137_balance_figures';
import { migration as m138 } from './138_gateway_account';
import { migration as m140 } from './140_processor_payouts';
import { migration as m141 } from './141_sandbox_books';
import { migration as m142 } from './142_attempt_language';
import { migration as m143 } from './143_sandbox_sessions';
import { migration as m144 } from './144_balance_checked';
import { migration as m145 } from './145_sales_gateway_last4';

// One file per migration, applied in the order of their names. A released migration's
// name is recorded in every deployed database: never rename one or change what it does;
// add the next number instead.
const migrations: Record<string, (d: Def) => Migration> = {
  '001_foundation': m001,
  '002_payments': m002,
  '003_notifications': m003,
  '004_gateway_calls': m004,
  '005_clients': m005,
  '006_subscriptions': m006,
  '007_wallets': m007,
  '008_source_charges': m008,
  '009_product_currency_optional': m009,
  '010_unknown_outcomes': m010,
  '020_sale_amounts_in_flight': m020,
  '021_hold_expiry': m021,
  '022_wallet_receivable': m022,
  '023_source_reservations': m023,
  '025_rate_limits': m025,
  '026_retention_indexes': m026,
  '030_dashboard_accounts': m030,
  '031_api_keys': m031,
  '040_totp': m040,
  '045_late_payments': m045,
  '050_event_deliveries': m050,
  '060_authentication': m060,
  '061_return_secret': m061,
  '065_receipts': m065,
  '066_branding': m066,
  '070_balance': m070,
  '075_status_checks': m075,
  '080_source_sales': m080,
  '081_balance_sources': m081,
  '082_environment_mode': m082,
  '083_disputes': m083,
  '084_merchant_payouts': m084,
  '085_save_card': m085,
  '086_dashboard_figures': m086,
  '088_one_store': m088,
  '089_card_steps': m089,
  '091_search_indexes': m091,
  '092_key_checks': m092,
  '093_operation_movements': m093,
  '094_key_reveals': m094,
  '095_invite_proof': m095,
  '096_password_resets': m096,
  '098_gateway_call_processor_id': m098,
  '099_processors': m099,
  '100_payout_states': m100,
  '101_payout_files': m101,
  '102_payment_search': m102,
  '103_processor_events': m103,
  '104_processor_customers': m104,
  '105_processor_redsys': m105,
  '106_processor_deliveries': m106,
  '107_sale_processor_settlements': m107,
  '108_confirm_links': m108,
  '109_redsys_orders': m109,
  '110_payout_account_holds': m110,
  '115_sale_status': m115,
  '116_saved_views': m116,
  '117_redsys_operations': m117,
  '120_time_zone': m120,
  '121_team_notifications': m121,
  '122_customer_emails': m122,
  '123_signup_authorization_index': m123,
  '125_payment_page_indexes': m125,
  '126_api_requests': m126,
  '127_payment_notes': m127,
  '128_dashboard_indexes': m128,
  '129_environment_pairs': m129,
  '130_customer_payers_index': m130,
  '131_processor_changes': m131,
  '132_payers': m132,
  '133_endpoint_changes': m133,
  '134_customer_key_index': m134,
  '135_rate_limit_shares': m135,
  '136_attempt_endpoint': m136,
  '137_balance_figures': m137,
  '138_gateway_account': m138,
  '140_processor_payouts': m140,
  // 139 was never released: a database that ran 140 refuses a lower new name.
  '141_sandbox_books': m141,
  '142_attempt_language': m142,
  '143_sandbox_sessions': m143,
  '144_balance_checked': m144,
  '145_sales_gateway_last4': m145,
};

/** Every migration's name, in the order they apply. */
export const migrationNames = Object.keys(migrations);

/**
 * Migrates to the latest version, or up to `to` (a migration's name: tests of an upgrade).
 * On PostgreSQL over `database.migrations()`: MIGRATION_DATABASE_URL when set, and a lock
 * held by the migration's own transaction, so a transaction pooler cannot strand it.
 */
export async function migrate(database: Database, to?: string): Promise<string[]> {
  if (!to && (await upToDate(database.db))) return [];
  const d = dialect(database.engine);
  const db = database.migrations?.() ?? database.db;
  try {
    const migrator = new Migrator({
      db,
      provider: {
        getMigrations: async () =>
          Object.fromEntries(Object.entries(migrations).map(([name, m]) => [name, m(d)])),
      },
    });
    const { error, results } = await (to ? migrator.migrateTo(to) : migrator.migrateToLatest());
    if (error) throw error;
    return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  } finally {
    if (db !== database.db) await db.destroy();
  }
}

/**
 * Whether every migration this code knows has run and none that it does not: what nearly
 * every start finds, told by one read instead of the Migrator's catalogue reads and lock
 * (about 50 ms of a start on PostgreSQL, docs/performance.md). Anything else, a new database
 * included, goes to the Migrator: it applies what is missing and refuses a database that a
 * newer release migrated.
 */
async function upToDate(db: Db): Promise<boolean> {
  // A new database has no table of them yet: the Migrator makes it.
  const applied = await appliedMigrations(db).catch(() => null);
  return applied !== null && applied.length === migrationNames.length && applied.every((name) => Object.hasOwn(migrations, name));
}
