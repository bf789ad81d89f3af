import type { AuthorizationRow } from '../store/schema';

// An authorization (a stored payment method) as the API shows it (and as its events carry it).

export function presentAuthorization(row: AuthorizationRow) {
  return {
    id: row.id,
    status: row.status,
    transaction_id: row.transaction_id,
    gateway: row.gateway_id,
    card:
      row.card_brand || row.card_last4
        ? { brand: row.card_brand, last4: row.card_last4, exp_month: row.card_exp_month, exp_year: row.card_exp_year }
        : null,
    client: row.client_id ?? null,
    authentication: row.authentication_status && row.authentication_method ? { status: row.authentication_status, method: row.authentication_method } : null,
    notify_url: row.notify_url,
    created: row.created_at,
    updated: row.updated_at,
  };
}
