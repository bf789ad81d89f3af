import { describe, expect, it } from 'vitest';
import { LANGUAGES } from '../../../widget/i18n/language';
import type { MessageKey, Strings } from '../../../widget/i18n/messages';
import { getStrings, getTranslator } from '../../../widget/i18n/server';
import { createTranslator } from '../../../widget/i18n/translate';

// Every variable any string uses, with values that would expose double escaping.
const VARS = {
  merchant: 'Tom & Jerry <Shop>',
  orderId: 'A-1',
  quantity: '2',
  unitPrice: '12,34 €',
  amount: '12,34 €',
  date: '1 March 2026',
  gateway: 'Sandbox Pay',
  brand: 'Visa',
  last4: '4242',
  digits: 3,
  time: '10:42 CET',
  price: '9,99 € al mes',
  every: 'every month',
};

function baseKeys(strings: Strings): MessageKey[] {
  return [...new Set(Object.keys(strings).map((key) => key.replace(/_(zero|one|two|few|many|other)$/, '')))] as MessageKey[];
}

describe('browser translator matches the server’s i18next', () => {
  it.each([...LANGUAGES])('%s: every key, same text', (language) => {
    const server = getTranslator(language);
    const browser = createTranslator(language, getStrings(language));
    for (const key of baseKeys(getStrings(language))) {
      expect(browser.t(key, VARS), key).toBe(server.t(key, VARS));
    }
  });

  it.each([...LANGUAGES])('%s: plural forms for counts 0–12 and large numbers', (language) => {
    const server = getTranslator(language);
    const browser = createTranslator(language, getStrings(language));
    for (const count of [0, 1, 2, 3, 5, 10, 11, 12, 21, 1_000_000]) {
      expect(browser.t('expiry.minutesLeft', { count }), String(count)).toBe(server.t('expiry.minutesLeft', { count }));
    }
  });

  it('interpolates without escaping (Preact escapes when rendering)', () => {
    expect(getTranslator('en').t('page.title', { merchant: 'A & B' })).toBe('Pay A & B');
  });

  it('chooses singular and plural forms', () => {
    const t = createTranslator('es', getStrings('es')).t;
    expect(t('expiry.minutesLeft', { count: 1 })).toBe('Queda 1 minuto para pagar');
    expect(t('expiry.minutesLeft', { count: 5 })).toBe('Quedan 5 minutos para pagar');
  });

  it('rejects unknown keys at compile time and shows the key at run time', () => {
    const { t } = createTranslator('en', getStrings('en'));
    // @ts-expect-error 'nope.key' is not in en.json, so `npm run typecheck` fails on it.
    expect(t('nope.key')).toBe('nope.key');
    // Plural forms are reached through the base key and `count`, never by suffix.
    const typeLevelOnly = () =>
      // @ts-expect-error 'expiry.minutesLeft_one' is a stored form, not a key callers use.
      t('expiry.minutesLeft_one', { count: 1 });
    expect(typeof typeLevelOnly).toBe('function');
  });

  it('recognises keys that arrive as data', () => {
    const i18n = createTranslator('fr', getStrings('fr'));
    expect(i18n.has('card.number')).toBe(true);
    expect(i18n.has('card.nope')).toBe(false);
    expect(i18n.has('toString')).toBe(false);
  });
});
