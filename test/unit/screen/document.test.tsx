import { describe, expect, it } from 'vitest';
import { assetsFromManifest, renderDocument, renderNotFound } from '../../../widget/screen/document';
import { serializeState, STATE_ELEMENT_ID, type InitialState } from '../../../widget/screen/state';
import type { CheckoutView } from '../../../widget/screen/view';
import { ASSETS, CARD_GATEWAY, makeView, REDIRECT_GATEWAY, SERVER_NOW } from './fixtures';

const NBSP = '\u00a0';

function render(overrides: Partial<CheckoutView> = {}): string {
  return renderDocument({ view: makeView(overrides), nonce: 'abc123', assets: ASSETS });
}

/** The app's markup alone, without the state script (which repeats merchant text). */
function appMarkup(html: string): string {
  const start = html.indexOf('<div id="app">');
  const end = html.indexOf(`<script type="application/json"`);
  expect(start).toBeGreaterThan(0);
  return html.slice(start, end === -1 ? undefined : end);
}

function stateOf(html: string): InitialState {
  const match = new RegExp(`<script type="application/json" id="${STATE_ELEMENT_ID}" nonce="abc123">(.*?)</script>`, 's').exec(html);
  expect(match).not.toBeNull();
  return JSON.parse(match![1]!) as InitialState;
}

function tag(html: string, selector: RegExp): string[] {
  return html.match(selector) ?? [];
}

describe('renderDocument: the document', () => {
  it('is a complete page with language, viewport, styles, state and nonced module scripts', () => {
    const html = render({ language: 'au' });
    expect(html.startsWith('<!doctype html><html lang="en-AU">')).toBe(true);
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(html).toContain('<link rel="stylesheet" href="/assets/client-abc.css">');
    expect(html).toContain('<script type="module" nonce="abc123" src="/assets/client-abc.js"></script>');
    expect(html).toContain('<title>Pay Tienda Ejemplo</title>');
    expect(stateOf(html).view.merchantName).toBe('Tienda Ejemplo');
    // The browser posts to the page's own URL: the token is not repeated in its state.
    expect(stateOf(html).view).not.toHaveProperty('token');
    expect(stateOf(html).strings['action.pay']).toBe('Pay {{amount}}');
  });

  it.each([
    ['en', 'en'],
    ['es', 'es'],
    ['fr', 'fr'],
    ['au', 'en-AU'],
  ] as const)('sets <html lang> for %s to %s and sends only that language', (language, lang) => {
    const html = render({ language });
    expect(html).toContain(`<html lang="${lang}">`);
    const es = stateOf(html).strings['action.cancel'];
    expect(es).toBe({ en: 'Cancel payment', au: 'Cancel payment', es: 'Cancelar el pago', fr: 'Annuler le paiement' }[language]);
  });

  it('has no inline styles or inline event handlers, which the CSP would block', () => {
    for (const view of [
      makeView(),
      makeView({ status: 'paid', receipt: { saleId: 's1', amount: 8824, brand: 'visa', last4: '4242', paidAt: SERVER_NOW } }),
      makeView({ status: 'declined', error: { message: 'error.declined', fields: {} } }),
    ]) {
      const html = renderDocument({ view, nonce: 'abc123', assets: ASSETS });
      expect(html).not.toMatch(/\sstyle=/i);
      expect(html).not.toMatch(/\son[a-z]+=/i);
      expect(html).not.toMatch(/<style/i);
      // Every script carries the nonce.
      expect(tag(html, /<script\b[^>]*>/g).every((s) => s.includes('nonce="abc123"'))).toBe(true);
    }
  });
});

describe('renderDocument: order summary', () => {
  it('lists every line with quantity, unit price and line total', () => {
    const html = appMarkup(render());
    expect(html).toContain('>Coffee beans<');
    expect(html).toContain('>Whole, 1 kg<');
    expect(html).toContain('>2 × €12.50<');
    expect(html).toContain('>€25.00<');
    expect(html).toContain('>Grinder<');
    expect(html).toContain('>1 × €49.99<');
  });

  it('lists the totals in the order they are computed, each kind beside its custom name', () => {
    const html = appMarkup(render());
    const rows = [...html.matchAll(/<dt>(.*?)<\/dt><dd>(.*?)<\/dd>/g)].map(([, dt, dd]) => `${dt!.replace(/<[^>]+>/g, '')} = ${dd}`);
    expect(rows).toEqual([
      'Subtotal = €74.99',
      'Tax · VAT 21% = €15.75',
      'Shipping · Express = €5.00',
      'Discount · WELCOME10 = -€7.50',
      'Total = €88.24',
    ]);
    expect(html).toContain('<span class="totals__code">WELCOME10</span>');
  });

  it('leaves out adjustments that are absent, and names unnamed ones', () => {
    const html = appMarkup(render({ tax: null, coupon: null, shipping: { name: '', value: 300 } }));
    expect(html).not.toContain('VAT');
    expect(html).not.toContain('WELCOME10');
    expect(html).not.toContain('Discount');
    expect(html).toContain('<dt>Shipping</dt><dd>€3.00</dd>');
    expect(appMarkup(render({ coupon: { name: '', value: 100 } }))).toContain('<dt>Discount</dt><dd>-€1.00</dd>');
  });

  it('formats for the language', () => {
    const es = appMarkup(render({ language: 'es' }));
    expect(es).toContain(`Pagar 88,24${NBSP}€`);
    expect(es).toContain(`>2 × 12,50${NBSP}€<`);
    const fr = appMarkup(render({ language: 'fr' }));
    expect(fr).toContain(`Payer 88,24${NBSP}€`);
    const au = appMarkup(render({ language: 'au', currency: 'AUD' }));
    expect(au).toContain('Pay $88.24');
    expect(appMarkup(render({ language: 'en', currency: 'AUD' }))).toContain('Pay A$88.24');
  });

  it('shows the expiry moment, in UTC on the server', () => {
    expect(appMarkup(render())).toContain('Pay by March 8, 2026 at 12:00 PM UTC');
    expect(appMarkup(render({ language: 'es' }))).toContain('Paga antes del 8 de marzo de 2026 a las 12:00 UTC');
  });

  it('switches to a countdown with a polite, once-a-minute announcement in the last ten minutes', () => {
    const html = appMarkup(render({ expiresAt: '2026-03-01T12:04:30.000Z' }));
    expect(html).toContain('4:30');
    expect(html).toContain('<span class="sr-only" aria-live="polite" aria-atomic="true">5 minutes left to pay</span>');
    expect(html).not.toContain('Pay by');
  });
});

describe('renderDocument: payment methods and fields', () => {
  it('renders a real radio group with the preselected gateway checked', () => {
    const html = appMarkup(render());
    expect(html).toMatch(/<fieldset[^>]*><legend[^>]*>Payment method<\/legend>/);
    const radios = tag(html, /<input[^>]*type="radio"[^>]*>/g);
    expect(radios).toHaveLength(2);
    expect(radios.every((radio) => radio.includes('name="gateway"'))).toBe(true);
    expect(radios[0]).toContain(`value="${CARD_GATEWAY.id}"`);
    expect(radios[0]).toContain(' checked');
    expect(radios[1]).not.toContain(' checked');
  });

  it('checks nothing and shows no fields when nothing is preselected', () => {
    const html = appMarkup(render({ selectedGateway: null }));
    expect(tag(html, /<input[^>]*type="radio"[^>]*>/g).some((radio) => radio.includes(' checked'))).toBe(false);
    expect(html).not.toContain('name="card_number"');
  });

  it('renders the declared fields with labels, autocomplete and numeric keyboards', () => {
    const html = appMarkup(render());
    for (const field of CARD_GATEWAY.fields) {
      const input = tag(html, new RegExp(`<input[^>]*name="${field.name}"[^>]*>`, 'g'))[0];
      expect(input, field.name).toBeDefined();
      expect(input).toContain(`autocomplete="${field.autocomplete}"`);
      expect(input).toContain(`id="field-${field.name}"`);
      expect(html).toContain(`<label class="field__label" for="field-${field.name}">`);
      if (field.inputMode === 'numeric') expect(input).toContain('inputmode="numeric"');
      else expect(input).not.toContain('inputmode=');
    }
    expect(html).toContain('>Card number</label>');
    expect(html).toContain('>Security code</label>');
  });

  it('helps with the card: placeholders, accepted brands, where the CVC is', () => {
    const html = appMarkup(render());
    expect(tag(html, /<input[^>]*name="card_number"[^>]*>/g)[0]).toContain('placeholder="1234 1234 1234 1234"');
    expect(tag(html, /<input[^>]*name="card_expiry"[^>]*>/g)[0]).toContain('placeholder="MM / YY"');
    expect(html).toMatch(/<ul class="brands" aria-label="Accepted cards">.*Visa.*Mastercard.*Amex.*<\/ul>/);
    const cvc = tag(html, /<input[^>]*name="card_cvc"[^>]*>/g)[0]!;
    expect(cvc).toContain('aria-describedby="field-card_cvc-hint"');
    expect(html).toContain('<p class="field__hint" id="field-card_cvc-hint">3 digits, on the back</p>');
  });

  it('names the detected brand and links it to the number; 4 CVC digits on the front for Amex', () => {
    const html = appMarkup(
      render({ values: { card_number: '3782 822463 10005' } }),
    );
    expect(html).toContain('<span class="sr-only" id="field-card_number-brand">American Express</span>');
    // Seen once: the accepted list marks it and dims the others.
    expect(html).toMatch(/<li class="brands__item">Amex<\/li>/);
    expect(html).toMatch(/<li class="brands__item brands__item--off">Visa<\/li>/);
    expect(tag(html, /<input[^>]*name="card_number"[^>]*>/g)[0]).toContain('aria-describedby="field-card_number-brand"');
    expect(html).toContain('4 digits, on the front');
    expect(tag(html, /<input[^>]*name="card_cvc"[^>]*>/g)[0]).toContain('maxlength="4"');
  });

  it('fills the kept fields of a failed post again, never the card number or CVC', () => {
    const html = appMarkup(render({ values: { card_expiry: '12 / 34', card_name: 'Ada' } }));
    expect(tag(html, /<input[^>]*name="card_expiry"[^>]*>/g)[0]).toContain('value="12 / 34"');
    expect(tag(html, /<input[^>]*name="card_name"[^>]*>/g)[0]).toContain('value="Ada"');
  });

  it('renders a redirect gateway as a button that continues to the provider', () => {
    const html = appMarkup(render({ selectedGateway: REDIRECT_GATEWAY.id }));
    expect(html).not.toContain('name="card_number"');
    expect(html).toContain('<span>Continue to Sandbox Pay</span>');
    expect(html).toContain('approve the payment of €88.24');
  });

  it('is a form that works without JavaScript', () => {
    const html = appMarkup(render());
    expect(html).toMatch(/<form class="payment" method="post" action(="")?>/);
    expect(html).toContain('<input type="hidden" name="csrf" value="csrf-token-123"/>');
    expect(html).toMatch(/<button[^>]*type="submit" name="action" value="pay"[^>]*>/);
    expect(html).toMatch(/<button[^>]*type="submit" name="action" value="cancel" formnovalidate[^>]*>/);
    // Pay comes first, so Enter in a field pays rather than cancels.
    expect(html.indexOf('value="pay"')).toBeLessThan(html.indexOf('value="cancel"'));
    expect(html).toContain('<span>Pay €88.24</span>');
  });

  it('shows server field errors inline, linked to their inputs', () => {
    const html = appMarkup(
      render({ error: { message: 'error.fieldsInvalid', fields: { card_number: 'error.card.number.invalid', card_cvc: 'error.card.cvc.length' } } }),
    );
    const number = tag(html, /<input[^>]*name="card_number"[^>]*>/g)[0]!;
    expect(number).toContain('aria-invalid="true"');
    expect(number).toContain('aria-describedby="field-card_number-error"');
    expect(html).toContain('<p class="field__error" id="field-card_number-error" aria-live="polite">Enter a valid card number.</p>');
    expect(html).toContain('id="field-card_cvc-error" aria-live="polite">Enter the 3-digit security code.</p>');
    expect(tag(html, /<input[^>]*name="card_expiry"[^>]*>/g)[0]).not.toContain('aria-invalid');
    expect(html).toContain('Check the highlighted details and try again.');
  });

  it('falls back to a generic message for an unknown error key', () => {
    const html = appMarkup(render({ error: { message: 'error.nonexistent', fields: { card_name: 'nope' } } }));
    expect(html).toContain('Something went wrong. Nothing was charged.');
    expect(html).not.toContain('error.nonexistent');
  });
});

describe('renderDocument: states', () => {
  it('pending: the form', () => {
    const html = appMarkup(render());
    expect(html).toContain('<form');
    expect(html).toContain('class="alert alert--empty"');
  });

  it('declined: the message and the form again', () => {
    const html = appMarkup(render({ status: 'declined', error: { message: 'error.insufficientFunds', fields: {} } }));
    expect(html).toContain('Payment declined');
    expect(html).toContain('declined because of insufficient funds');
    expect(html).toContain('<form');
    expect(appMarkup(render({ status: 'declined' }))).toContain('Your payment was declined.');
  });

  it('paid: a receipt with amount, card and date, and no form', () => {
    const html = appMarkup(
      render({ status: 'paid', receipt: { saleId: '0190f5a0-1234-7000-8000-00006f0a0042', amount: 8824, brand: 'visa', last4: '4242', paidAt: '2026-03-01T12:01:00Z' } }),
    );
    expect(html).toContain('Payment complete');
    expect(html).toContain('<dd>€88.24</dd>');
    expect(html).toContain('Visa ending in 4242');
    expect(html).toContain('March 1, 2026 at 12:01 PM UTC');
    expect(html).toContain('<dd class="receipt__ref">6F0A-0042</dd>');
    expect(html).not.toContain('0190f5a0');
    expect(html).not.toContain('<form');
    expect(html).toContain('<p class="merchant__label">You paid</p>');
    expect(html).not.toContain('Pay by');
  });

  it('paid in French with an unknown brand', () => {
    const html = appMarkup(
      render({ language: 'fr', status: 'paid', receipt: { saleId: 's', amount: 100, brand: null, last4: '0005', paidAt: SERVER_NOW } }),
    );
    expect(html).toContain('Paiement effectué');
    expect(html).toContain('Carte se terminant par 0005');
  });

  it('cancelled and expired: a message, no form', () => {
    const cancelled = appMarkup(render({ status: 'cancelled' }));
    expect(cancelled).toContain('Payment cancelled');
    expect(cancelled).not.toContain('<form');
    const expired = appMarkup(render({ status: 'expired' }));
    expect(expired).toContain('This payment link has expired');
    expect(expired).not.toContain('<form');
  });

  it('expired when the moment has passed even if the status still says pending', () => {
    const html = appMarkup(render({ status: 'pending', expiresAt: '2026-03-01T11:59:59Z' }));
    expect(html).toContain('This payment link has expired');
    expect(html).not.toContain('<form');
  });

  it('embed mode drops the page chrome', () => {
    const html = render({ embed: { parentOrigin: 'https://shop.example', returnUrl: null, cancelUrl: null, justFinished: false } });
    expect(html).toContain('<html lang="en" class="embed">');
    expect(html).toContain('class="page page--embed"');
    expect(html).not.toContain('class="topbar"');
    expect(appMarkup(render())).toContain('class="topbar"');
    // The merchant's page has the main landmark; the frame is a named region of it.
    expect(appMarkup(html)).not.toContain('<main');
    expect(appMarkup(html)).toMatch(/<section class="layout" aria-label="Pay [^"]+">/);
    expect(appMarkup(render())).toContain('<main class="layout">');
  });
});

describe('merchant text cannot break out', () => {
  const hostile = '</script><script>alert(1)</script><!--';

  it('is escaped in the markup', () => {
    const html = render({ merchantName: hostile, lines: [{ name: hostile, description: hostile, quantity: '1', unitPrice: 1, lineTotal: 1 }] });
    expect(html).not.toContain('<script>alert(1)');
    expect(appMarkup(html)).toContain('&lt;/script>&lt;script>alert(1)&lt;/script>&lt;!--');
    expect(html).toContain('<title>Pay &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;!--</title>');
  });

  it('is escaped in the state JSON, and reads back unchanged', () => {
    const html = render({ merchantName: hostile, orderId: 'a\u2028b\u2029c&d>e' });
    // Only the state script and the module script: the merchant name opened and closed none.
    expect(tag(html, /<script/g)).toHaveLength(2);
    expect(tag(html, /<\/script>/g)).toHaveLength(2);
    const state = stateOf(html);
    expect(state.view.merchantName).toBe(hostile);
    expect(state.view.orderId).toBe('a\u2028b\u2029c&d>e');
  });

  it('serializeState escapes <, >, &, U+2028 and U+2029', () => {
    const json = serializeState({ view: makeView({ merchantName: '<>&\u2028\u2029' }), strings: {} as InitialState['strings'] });
    expect(json).toContain('"merchantName":"\\u003c\\u003e\\u0026\\u2028\\u2029"');
    expect(json).not.toMatch(/[<>&\u2028\u2029]/);
  });
});

describe('renderNotFound', () => {
  it.each([
    ['en', 'en', 'Payment not found'],
    ['es', 'es', 'No encontramos este pago'],
    ['fr', 'fr', 'Paiement introuvable'],
    ['au', 'en-AU', 'Payment not found'],
  ] as const)('%s: a page with no transaction and no script', (language, lang, title) => {
    const html = renderNotFound({ language, nonce: 'abc123', assets: ASSETS });
    expect(html.startsWith(`<!doctype html><html lang="${lang}">`)).toBe(true);
    expect(html).toContain(`<title>${title}</title>`);
    expect(html).toContain(`<h1 class="status__title">${title}</h1>`);
    expect(html).toContain('<link rel="stylesheet" href="/assets/client-abc.css">');
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<form');
  });
});

describe('assetsFromManifest', () => {
  it('maps the client entry to /assets/ URLs', () => {
    const manifest = { 'widget/screen/client.tsx': { file: 'assets/client-x1.js', css: ['assets/client-y2.css'] } };
    expect(assetsFromManifest(manifest)).toEqual({ scripts: ['/assets/client-x1.js'], styles: ['/assets/client-y2.css'] });
  });
  it('fails loudly when the build is missing', () => {
    expect(() => assetsFromManifest({})).toThrow(/vite build/);
  });
});

describe('renderDocument: an empty error message', () => {
  it('shows no alert when pending, and the default text when declined', () => {
    expect(appMarkup(render({ error: { message: '', fields: {} } }))).toContain('class="alert alert--empty"');
    expect(appMarkup(render({ status: 'declined', error: { message: '', fields: {} } }))).toContain('Your payment was declined.');
  });
});
