import { describe, expect, it } from 'vitest';
import { htmlLang, intlLocale, resolveLanguage } from '../../../widget/i18n/language';

describe('resolveLanguage', () => {
  it.each([
    // The transaction's own language wins whatever the browser says.
    ['es', 'fr-FR,fr;q=0.9', 'es'],
    ['au', undefined, 'au'],
    ['fr', 'en', 'fr'],
    // Not one of ours: fall through to Accept-Language.
    ['de', 'fr-CA,fr;q=0.9', 'fr'],
    [null, 'es-ES,es;q=0.9,en;q=0.8', 'es'],
    [null, 'es-MX', 'es'],
    [null, 'en-AU,en;q=0.9', 'au'],
    [null, 'en-au', 'au'],
    [null, 'en-GB,en;q=0.9', 'en'],
    [null, 'en-US', 'en'],
    [null, 'EN', 'en'],
    // Weights, not order, decide.
    [null, 'de-DE;q=1, fr;q=0.5, es;q=0.7', 'es'],
    [null, 'en;q=0.1, en-AU;q=0.8', 'au'],
    // Equal weights keep the client's order.
    [null, 'fr;q=0.8, es;q=0.8', 'fr'],
    // q=0 means "not acceptable".
    [null, 'fr;q=0, es;q=0.1', 'es'],
    // Nothing usable: English.
    [null, 'de-DE,de;q=0.9,ja;q=0.8', 'en'],
    [null, '*', 'en'],
    [null, '', 'en'],
    [null, undefined, 'en'],
    [null, ';;,;q=abc', 'en'],
  ] as const)('(%s, %s) → %s', (transaction, accept, expected) => {
    expect(resolveLanguage(transaction, accept)).toBe(expected);
  });
});

describe('locale tags', () => {
  it.each([
    ['en', 'en', 'en'],
    ['es', 'es-ES', 'es'],
    ['fr', 'fr-FR', 'fr'],
    ['au', 'en-AU', 'en-AU'],
  ] as const)('%s formats as %s, html lang %s', (language, intl, html) => {
    expect(intlLocale(language)).toBe(intl);
    expect(htmlLang(language)).toBe(html);
  });
});
