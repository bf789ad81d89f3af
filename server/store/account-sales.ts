import type { ExpressionBuilder } from 'kysely';
import type { Tables } from './schema';

// Which sales are one processor account's, for what reads them per account (the daily
// sweep, a processor's disputes): gateway ids are per processor type, so after a disconnect
// and a new connect of the same type two accounts' sales share one (migration 138).

/**
 * The sales of one account of a gateway in an environment. `unnamed`: also the sales that
 * name no account (made before migration 138), which belong to whichever account the
 * registry's rule gives them (payments/registry.ts `named`: the one connected now, else the
 * one disconnected last); the caller says whether that is this one.
 */
export interface AccountSales {
  environmentId: string;
  gatewayId: string;
  account: string;
  unnamed: boolean;
}

/** The condition on `sales` of a query that selects an account's sales. */
export function ofAccount(eb: ExpressionBuilder<Tables, 'sales'>, a: AccountSales) {
  const named = eb('sales.gateway_account', '=', a.account);
  return eb.and([
    eb('sales.environment_id', '=', a.environmentId),
    eb('sales.gateway_id', '=', a.gatewayId),
    a.unnamed ? eb.or([named, eb('sales.gateway_account', 'is', null)]) : named,
  ]);
}
