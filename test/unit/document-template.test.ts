import { describe, expect, it } from 'vitest';
import { documentTemplate, renderDocument } from '../../widget/screen/document';
import { getStrings } from '../../widget/i18n/server';
import { browserView, type InitialState, STATE_ELEMENT_ID } from '../../widget/screen/state';
import type { CheckoutView } from '../../widget/screen/view';
import { ASSETS, makeView, SERVER_NOW } from './screen/fixtures';

// The payment page rendered once and filled in per response: only the nonce and the
// state's serverNow may differ between two fills, and merchant text that looks like
// either is never touched.

/** Two module scripts, so "every script" means more than one. */
const TWO_SCRIPTS = { scripts: ['/assets/client-abc.js', '/assets/vendor-def.js'], styles: ASSETS.styles };

const fill = (view: CheckoutView, slots: { nonce: string; serverNow: string }, assets = TWO_SCRIPTS) =>
  documentTemplate({ view, assets }).fill(slots).toString();

const scriptTags = (html: string) => html.match(/<script\b[^>]*>/g) ?? [];

function stateOf(html: string): InitialState {
  const match = new RegExp(`<script type="application/json" id="${STATE_ELEMENT_ID}"[^>]*>(.*?)</script>`, 's').exec(html);
  expect(match).not.toBeNull();
  return JSON.parse(match![1]!) as InitialState;
}

function occurrences(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}

describe('documentTemplate', () => {
  it('puts the nonce on every script tag, and nowhere else', () => {
    const html = fill(makeView(), { nonce: 'Rk9PYmFyMTIzNDU2Nzg5MA==', serverNow: SERVER_NOW });
    const tags = scriptTags(html);
    // The state and the two module scripts.
    expect(tags).toHaveLength(3);
    for (const tag of tags) expect(tag).toContain(' nonce="Rk9PYmFyMTIzNDU2Nzg5MA=="');
    expect(occurrences(html, 'Rk9PYmFyMTIzNDU2Nzg5MA==')).toBe(3);
    expect(html).toContain('<script type="module" nonce="Rk9PYmFyMTIzNDU2Nzg5MA==" src="/assets/vendor-def.js"></script>');
    expect(html).not.toMatch(/nonce-|now-[0-9a-f]{8}-/);
  });

  it('puts serverNow into the state, the rest of the view unchanged', () => {
    const view = makeView();
    const html = fill(view, { nonce: 'n1', serverNow: '2031-07-04T05:06:07.089Z' });
    const state = stateOf(html);
    expect(state.view.serverNow).toBe('2031-07-04T05:06:07.089Z');
    expect(state.view).toEqual({ ...browserView(view), serverNow: '2031-07-04T05:06:07.089Z' });
    // The order's lines are in the markup only (the browser keeps the summary as rendered).
    expect(state.view.lines).toEqual([]);
    expect(html).toContain('<span class="line__name">Coffee beans</span>');
    expect(state.strings['action.pay']).toBe('Pay {{amount}}');
    // The view's own clock is not left anywhere in the document.
    expect(html).not.toContain(SERVER_NOW);
  });

  it('fills the same template any number of times; two fills differ only at the nonces and the clock', () => {
    const template = documentTemplate({ view: makeView(), assets: TWO_SCRIPTS });
    const a = template.fill({ nonce: 'AAAAAAAAAAAAAAAAAAAAAA==', serverNow: '2026-03-01T12:00:01.000Z' }).toString();
    const b = template.fill({ nonce: 'bbbbbbbbbbbbbbbbbbbbbb==', serverNow: '2026-03-01T12:07:42.123Z' }).toString();
    const again = template.fill({ nonce: 'AAAAAAAAAAAAAAAAAAAAAA==', serverNow: '2026-03-01T12:00:01.000Z' }).toString();
    expect(again).toBe(a);
    expect(a).not.toBe(b);
    expect(occurrences(a, '2026-03-01T12:00:01.000Z')).toBe(1);
    expect(occurrences(b, '2026-03-01T12:07:42.123Z')).toBe(1);
    const blank = (html: string, nonce: string, now: string) => html.replaceAll(nonce, '{nonce}').replace(now, '{now}');
    expect(blank(a, 'AAAAAAAAAAAAAAAAAAAAAA==', '2026-03-01T12:00:01.000Z')).toBe(blank(b, 'bbbbbbbbbbbbbbbbbbbbbb==', '2026-03-01T12:07:42.123Z'));
    // Character by character: the first difference is inside the first nonce.
    let i = 0;
    while (a[i] === b[i]) i++;
    expect(a.slice(0, i).endsWith('nonce="')).toBe(true);
  });

  it('gives what renderDocument gives, for each language, state and embedding', () => {
    const views = [
      makeView(),
      makeView({ language: 'fr' }),
      makeView({ language: 'au', currency: 'AUD' }),
      makeView({ status: 'declined', error: { message: 'error.insufficientFunds', fields: {} } }),
      makeView({ status: 'paid', receipt: { saleId: 's1', amount: 8824, brand: 'visa', last4: '4242', paidAt: SERVER_NOW } }),
      makeView({ embed: { parentOrigin: 'https://shop.example', returnUrl: null, cancelUrl: null, justFinished: false } }),
    ];
    for (const view of views) {
      const nonce = 'cmVuZGVyRG9jdW1lbnQ=';
      const viaTemplate = documentTemplate({ view, assets: ASSETS }).fill({ nonce, serverNow: view.serverNow }).toString();
      const direct = renderDocument({ view, nonce, assets: ASSETS });
      expect(direct).toBe(viaTemplate);
      expect(stateOf(direct).view).toEqual(browserView(view));
      expect(scriptTags(direct).every((tag) => tag.includes(`nonce="${nonce}"`))).toBe(true);
    }
  });

  it('takes the title and strings given, as renderDocument does', () => {
    const view = makeView();
    const strings = { ...getStrings(view.language), 'action.pay': 'Pagar ya' };
    const html = documentTemplate({ view, assets: ASSETS, strings, title: 'Custom <title>' }).fill({ nonce: 'x', serverNow: SERVER_NOW }).toString();
    expect(html).toContain('<title>Custom &lt;title&gt;</title>');
    expect(stateOf(html).strings['action.pay']).toBe('Pagar ya');
    expect(renderDocument({ view, nonce: 'x', assets: ASSETS, strings, title: 'Custom <title>' })).toBe(html);
  });

  it('leaves merchant text that looks like a nonce or a clock alone', () => {
    const lookalike = `nonce-abc now-def "serverNow":"2020-01-01T00:00:00.000Z" ${SERVER_NOW} nonce="x"`;
    const view = makeView({
      merchantName: lookalike,
      orderId: `${SERVER_NOW} nonce-00000000-0000-4000-8000-000000000000`,
      lines: [{ name: lookalike, description: '2020-01-01T00:00:00.000Z', quantity: '1', unitPrice: 100, lineTotal: 100 }],
    });
    const html = fill(view, { nonce: 'TkVXTk9OQ0U=', serverNow: '2031-01-01T00:00:00.000Z' });
    const state = stateOf(html);
    expect(state.view.serverNow).toBe('2031-01-01T00:00:00.000Z');
    expect(state.view.merchantName).toBe(lookalike);
    expect(state.view.orderId).toBe(view.orderId);
    expect(html).toContain('<span class="line__desc">2020-01-01T00:00:00.000Z</span>');
    // Exactly one clock in the document: the state's.
    expect(occurrences(html, '2031-01-01T00:00:00.000Z')).toBe(1);
    // The markup and the title show the text as given (escaped, not replaced).
    expect(html).toContain('<title>Pay nonce-abc now-def &quot;serverNow&quot;:&quot;2020-01-01T00:00:00.000Z&quot;');
    expect(html).toContain(`${SERVER_NOW} nonce-00000000-0000-4000-8000-000000000000`);
    expect(occurrences(html, 'TkVXTk9OQ0U=')).toBe(3);
  });

  it('escapes the nonce as an attribute value, and the clock as a JSON string', () => {
    const nonce = 'a"b<c>&d';
    const html = fill(makeView(), { nonce, serverNow: 'odd "clock" \\ value' });
    const tags = scriptTags(html);
    expect(tags).toHaveLength(3);
    for (const tag of tags) expect(tag).toContain(' nonce="a&quot;b&lt;c&gt;&amp;d"');
    expect(html).not.toContain('a"b');
    expect(stateOf(html).view.serverNow).toBe('odd "clock" \\ value');
  });

  it('reports its length in bytes, whatever the text', () => {
    const view = makeView({ merchantName: '€'.repeat(500), lines: [{ name: 'Café ☕'.repeat(50), description: null, quantity: '1', unitPrice: 1, lineTotal: 1 }] });
    const template = documentTemplate({ view, assets: ASSETS });
    const slots = { nonce: 'MTIzNDU2Nzg5MDEyMzQ1Ng==', serverNow: SERVER_NOW };
    const bytes = Buffer.byteLength(template.fill(slots).toString());
    // Four nonce-sized and one clock-sized slot at most apart; UTF-16 units would be
    // thousands fewer (each € is three bytes, one unit).
    expect(Math.abs(template.length - bytes)).toBeLessThan(5 * 64);
    expect(bytes - template.fill(slots).toString().length).toBeGreaterThan(2000);
  });
});
