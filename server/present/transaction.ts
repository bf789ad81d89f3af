import type { Language } from '../../widget/i18n/language';
import { findCurrency } from '../domain/currencies';
import { unitsToNumber } from '../domain/money';
import { effectiveStatus } from '../domain/transaction-status';
import type { StoredTransaction } from '../store/transactions';

// A transaction as the API shows it (and as its events carry it): the one presenter the
// routes and the outbox share, so a webhook shows exactly what a GET would.

export function presentTransaction(tx: StoredTransaction, now: Date, baseUrl: string) {
  const { row, lines } = tx;
  const exp = findCurrency(row.currency)?.exponent ?? 2;
  const money = (units: number) => unitsToNumber(units, exp);
  return {
    id: row.id,
    token: row.token,
    status: effectiveStatus(row.status, row.expired_at, now),
    payment_url: `${baseUrl}/pay/${row.token}/`,
    order_id: row.order_id,
    currency: row.currency,
    note: row.note,
    extra: row.extra,
    return_url: row.return_url,
    cancel_url: row.cancel_url,
    notify_url: row.notify_url,
    gateway_selected: row.gateway_selected,
    language: row.language as Language | null,
    customer_email: row.customer_email ?? null,
    expired_date: row.expired_at,
    products: lines.map((l) => ({
      amount: Number(l.quantity),
      product_id: l.product_ref,
      product: { product_id: l.product_id, name: l.name, price: money(l.unit_price), description: l.description },
      total: money(l.line_total),
    })),
    tax_value: money(row.tax_value),
    tax_name: row.tax_name,
    tax: row.tax_ref,
    shipping_value: money(row.shipping_value),
    shipping_name: row.shipping_name,
    shipping: row.shipping_ref,
    coupon_value: money(row.coupon_value),
    coupon_name: row.coupon_name,
    coupon: row.coupon_ref,
    authorize: row.authorize,
    source: row.source,
    destination: row.destination,
    items_price: money(row.items_price),
    total_price: money(row.total_price),
    created: row.created_at,
    updated: row.updated_at,
  };
}
