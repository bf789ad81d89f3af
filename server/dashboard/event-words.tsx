import { findCurrency } from '../domain/currencies';
import { toUnits } from '../domain/money';
import { EVENT_TYPES, type EventFamily, type EventType } from '../domain/event-types';
import type { DashboardText } from './i18n';

// An event as a merchant reads it ("Payment succeeded", "Refund created: €12.50"), linked to
// its page, with its type in the link for developers, who match on the type (and find the
// link by it). An event whose object carries the money it moved says how much.

const KNOWN: ReadonlySet<string> = new Set(EVENT_TYPES);
const isEventType = (type: string): type is EventType => KNOWN.has(type);

type Data = Record<string, unknown>;

/** Where each family's payload says its money (major units of its `currency`), as the API presents it. */
const AMOUNT_FIELD: Partial<Record<EventFamily, string>> = { transaction: 'total_price', sale: 'amount', wallet: 'amount', transfer: 'amount', merchant_payout: 'amount', dispute: 'amount' };
/** A sale's change of part of its money: the operation it added (the last of its kind), not the sale's amount. */
const SALE_OPERATION: Partial<Record<EventType, string>> = { 'sale.captured': 'capture', 'sale.refunded': 'refund', 'sale.voided': 'void' };
/** What moved no money of its own, or none the payload can name: said without an amount. */
const NO_AMOUNT: ReadonlySet<EventType> = new Set(['transaction.cancelled', 'transaction.expired', 'sale.hold_expired', 'sale.refund_failed']);

function amountValue(type: EventType, data: Data): unknown {
  if (NO_AMOUNT.has(type)) return undefined;
  const kind = SALE_OPERATION[type];
  if (kind) {
    const operations = Array.isArray(data.operations) ? (data.operations as Data[]) : [];
    return operations.findLast((o) => o.kind === kind)?.amount;
  }
  const field = AMOUNT_FIELD[type.slice(0, type.indexOf('.')) as EventFamily];
  return field ? data[field] : undefined;
}

/** The money an event's payload says it moved, in minor units of its currency; null when it names none. */
function eventAmount(type: string, data: Data | undefined): { units: number; currency: string } | null {
  if (!data || !isEventType(type)) return null;
  const value = amountValue(type, data);
  const currency = typeof data.currency === 'string' ? findCurrency(data.currency) : undefined;
  if (typeof value !== 'number' || !currency) return null;
  try {
    return { units: Number(toUnits(value, currency.exponent)), currency: currency.code };
  } catch {
    // More decimals than its currency takes: not an amount this service wrote.
    return null;
  }
}

/** What an event of `type` says in the text's language, with the amount its payload names; a type the service does not emit reads as itself. */
export function eventWords(text: DashboardText, type: string, data?: Data): string {
  if (!isEventType(type)) return type;
  const words = text.t(`ev.says.${type}`);
  const amount = eventAmount(type, data);
  return amount ? text.t('ev.withAmount', { words, amount: text.money(amount.units, amount.currency) }) : words;
}

export function EventLink({ text, event }: { text: DashboardText; event: { id: string; type: string; data?: Data } }) {
  return (
    <>
      <a href={`/dashboard/events/${event.id}/`}>
        {eventWords(text, event.type, event.data)} <code class="event-type">{event.type}</code>
      </a>
    </>
  );
}
