import { describe, expect, it } from 'vitest';
import en from '../../locales/dashboard/en.json' with { type: 'json' };
import es from '../../locales/dashboard/es.json' with { type: 'json' };
import fr from '../../locales/dashboard/fr.json' with { type: 'json' };
import au from '../../locales/dashboard/au.json' with { type: 'json' };
import { eventWords } from '../../server/dashboard/event-words';
import { dashboardText } from '../../server/dashboard/i18n';
import { EVENT_TYPES } from '../../server/domain/event-types';

// Every event type the service emits (EVENT_FAMILIES, the one registry) has words in each of
// the dashboard's languages: a type added without them fails here. Read from the files
// themselves, since i18next would quietly fall back to English for a missing key.

const FILES: Record<'en' | 'es' | 'fr' | 'au', Record<string, string>> = { en, es, fr, au };
const PREFIX = 'ev.says.';

describe('events in words', () => {
  it.each(Object.keys(FILES) as (keyof typeof FILES)[])('%s has words for every event type, and only for those', (language) => {
    const strings = FILES[language];
    const text = dashboardText(language);
    const missing = EVENT_TYPES.filter((type) => !strings[`${PREFIX}${type}`]?.trim());
    expect(missing).toEqual([]);
    for (const type of EVENT_TYPES) expect(eventWords(text, type)).toBe(strings[`${PREFIX}${type}`]);
    // No words left for a type the service no longer emits.
    const worded = Object.keys(strings).filter((k) => k.startsWith(PREFIX)).map((k) => k.slice(PREFIX.length));
    expect(worded.sort()).toEqual([...EVENT_TYPES].sort());
  });

  it('translates rather than copies the English words', () => {
    for (const language of ['es', 'fr'] as const) {
      const copied = EVENT_TYPES.filter((type) => FILES[language][`${PREFIX}${type}`] === en[`${PREFIX}${type}` as keyof typeof en]);
      expect(copied, language).toEqual([]);
    }
  });

  it('says the amount the payload names, in the shop’s language: a capture, refund or void by its own operation', () => {
    const en = dashboardText('en');
    const sale = { currency: 'EUR', amount: 30, operations: [{ kind: 'capture', amount: 30 }, { kind: 'refund', amount: 10 }, { kind: 'refund', amount: 12.5 }, { kind: 'void', amount: 0 }] };
    expect(eventWords(en, 'sale.refunded', sale)).toBe('Refund created: €12.50');
    expect(eventWords(en, 'sale.captured', sale)).toBe('Payment captured: €30.00');
    expect(eventWords(en, 'sale.created', sale)).toBe('Sale created: €30.00');
    expect(eventWords(en, 'transaction.paid', { currency: 'JPY', total_price: 1500 })).toBe('Payment succeeded: ¥1,500');
    expect(eventWords(en, 'dispute.created', { currency: 'KWD', amount: 1.234 })).toMatch(/^Dispute opened: KWD\s1\.234$/);
    expect(eventWords(en, 'merchant_payout.paid', { currency: 'EUR', amount: 99.9 })).toBe('Payout to you paid: €99.90');
    expect(eventWords(en, 'wallet.debited', { currency: 'EUR', amount: 5 })).toBe('Wallet debited: €5.00');
    expect(eventWords(dashboardText('fr'), 'sale.refunded', sale)).toMatch(/^Remboursement créé : 12,50\s€$/);
    expect(eventWords(dashboardText('es'), 'dispute.created', { currency: 'EUR', amount: 30 })).toMatch(/^Disputa abierta: 30,00\s€$/);
  });

  it('says no amount where the event moved none or its payload names none', () => {
    const en = dashboardText('en');
    expect(eventWords(en, 'transaction.cancelled', { currency: 'EUR', total_price: 10 })).toBe('Payment cancelled by the customer');
    expect(eventWords(en, 'sale.refund_failed', { currency: 'EUR', amount: 10, operations: [] })).toBe('Refund failed: returned by the bank');
    expect(eventWords(en, 'product.created', { currency: 'EUR', price: 10 })).toBe('Product created');
    // No operation of its kind, no currency, an unknown one, a string, more decimals than the currency has.
    expect(eventWords(en, 'sale.refunded', { currency: 'EUR', amount: 30, operations: [{ kind: 'capture', amount: 30 }] })).toBe('Refund created');
    expect(eventWords(en, 'dispute.created', { amount: 30 })).toBe('Dispute opened');
    expect(eventWords(en, 'dispute.created', { currency: 'XXZ', amount: 30 })).toBe('Dispute opened');
    expect(eventWords(en, 'dispute.created', { currency: 'EUR', amount: '30' })).toBe('Dispute opened');
    expect(eventWords(en, 'transaction.paid', { currency: 'JPY', total_price: 1.5 })).toBe('Payment succeeded');
  });

  it('reads a type it does not know (an event older than a rename) as the type itself', () => {
    expect(eventWords(dashboardText('fr'), 'sale.renamed_long_ago')).toBe('sale.renamed_long_ago');
    expect(eventWords(dashboardText('fr'), 'dispute.created')).toBe('Litige ouvert');
  });
});
