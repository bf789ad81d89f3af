import type { Signal } from '@preact/signals-core';
import { renderToString } from 'preact-render-to-string';
import { describe, expect, it } from 'vitest';
import { LANGUAGES, type Language } from '../../../widget/i18n/language';
import type { Strings } from '../../../widget/i18n/messages';
import { getStrings } from '../../../widget/i18n/server';
import { createTranslator } from '../../../widget/i18n/translate';
import { clientStrings } from '../../../widget/screen/client-strings';
import { ChallengePanel } from '../../../widget/screen/components/ChallengePanel';
import { CheckoutScreen } from '../../../widget/screen/components/CheckoutScreen';
import { KEPT_PARTS } from '../../../widget/screen/components/parts';
import { type Flavour, flavourOf } from '../../../widget/screen/flavour';
import { createCheckoutModel, type CheckoutModel } from '../../../widget/screen/model';
import type { CheckoutView } from '../../../widget/screen/view';
import { CARD_GATEWAY, makeView, REDIRECT_GATEWAY, SERVER_NOW } from './fixtures';

// The browser gets only some of the page language's strings (client-strings.ts). Whatever
// the hydrated screen can come to show, in every flavour and language, must read the same
// with those as with all of them: a missing key would show as the key itself. The parts the
// browser keeps from the server's markup are rendered as the browser renders them.

const FLAVOURS: Record<Flavour, Partial<CheckoutView>> = {
  pay: {},
  subscription: {
    subscription: { planName: 'Coffee club', amount: 999, interval: 'month', intervalCount: 1, trialDays: 14, firstChargeAt: '2026-03-15T12:00:00.000Z', pastDue: false },
  },
  save: { saveCard: true },
};

const RECEIPT = { saleId: '0190f5a0-1234-7000-8000-00006f0a0042', amount: 8824, brand: 'visa', last4: '4242', paidAt: SERVER_NOW };

/** Writes a signal the model only exposes to read. */
const set = <T,>(signal: unknown, value: T) => ((signal as Signal<T>).value = value);

type State = [string, Partial<CheckoutView>, ((model: CheckoutModel) => void)?];

function states(keys: string[], flavour: Flavour): State[] {
  // A card is saved on the save and sign-up pages only: error.save… is theirs
  // (server/checkout/save-routes.ts, signup-routes.ts, store-step.ts).
  const errors = keys.filter((key) => key.startsWith('error.') && (flavour !== 'pay' || !key.startsWith('error.save')));
  return [
    ['pending', {}],
    ['pending, hydrated, in the last minutes', { expiresAt: '2026-03-01T12:05:00.000Z' }, (m) => m.start({ timeZone: 'Europe/Madrid' })],
    ['the redirect gateway', { selectedGateway: REDIRECT_GATEWAY.id }],
    ['no gateway chosen', { selectedGateway: null, error: { message: 'error.gatewayRequired', fields: { gateway: 'error.gatewayRequired' } } }],
    ['declined', { status: 'declined' }],
    ['too many attempts', { status: 'declined', retryAt: '2026-03-01T12:30:00.000Z', error: { message: 'error.tooManyAttempts', fields: {} } }],
    ...errors.map((key): State => [`message ${key}`, { error: { message: key, fields: {} } }]),
    ...errors.map((key): State => [`field error ${key}`, { error: { message: 'error.fieldsInvalid', fields: Object.fromEntries(CARD_GATEWAY.fields.map((f) => [f.name, key])) } }]),
    ['amex number typed', {}, (m) => m.setField('card_number', '3782 822463 10005')],
    ['processing', {}, (m) => set(m.pending, 'pay')],
    ['cancelling', { confirmCancel: true }, (m) => set(m.pending, 'cancel')],
    ['redirecting', { selectedGateway: REDIRECT_GATEWAY.id }, (m) => (set(m.pending, 'pay'), set(m.redirecting, true))],
    ['asked to confirm the cancel', { confirmCancel: true }],
    ['paid', { status: 'paid', receipt: RECEIPT }],
    ['paid, no brand, returning to the shop', { status: 'paid', receipt: { ...RECEIPT, brand: null } }, (m) => set(m.returningTo, 'https://shop.example/')],
    ['paid, hydrated (print)', { status: 'paid', receipt: RECEIPT, backUrl: 'https://shop.example/' }, (m) => m.start({ timeZone: 'UTC' })],
    ['cancelled', { status: 'cancelled', backUrl: 'https://shop.example/' }],
    ['expired', { status: 'expired', backUrl: 'https://shop.example/' }],
    ['checking', { status: 'checking' }],
    ['embedded', { embed: { parentOrigin: 'https://shop.example', returnUrl: null, cancelUrl: null, justFinished: false } }],
    ['sandbox, with a way back', { sandbox: true, backUrl: 'https://shop.example/' }],
  ];
}

function renderAll(language: Language, flavour: Flavour, strings: Partial<Strings>): string[] {
  const i18n = createTranslator(language, strings);
  const keys = Object.keys(getStrings(language));
  const out = states(keys, flavour).map(([name, overrides, act]) => {
    const model = createCheckoutModel(makeView({ language, ...FLAVOURS[flavour], ...overrides }), {
      now: () => Date.parse(SERVER_NOW),
      timers: { setTimeout: () => 0, clearTimeout: () => undefined },
    });
    act?.(model);
    return `${name}: ${renderToString(<CheckoutScreen model={model} i18n={i18n} parts={KEPT_PARTS} />)}`;
  });
  const saving = flavour !== 'pay';
  out.push(renderToString(<ChallengePanel i18n={i18n} merchant="Shop" amount="€1.00" heading="h2" saving={saving} onAnswer={() => undefined} />));
  // What the frame reports to the merchant's page when the link expires (client.tsx).
  out.push(i18n.t('status.expired.title'));
  return out;
}

/** The state's name and where the two renders part, briefly. */
function firstDifference(actual: string, expected: string): string {
  let at = 0;
  while (actual[at] === expected[at]) at++;
  return `${actual.slice(0, actual.indexOf(':'))}: …${actual.slice(at - 40, at + 40)}… instead of …${expected.slice(at - 40, at + 40)}…`;
}

describe('clientStrings: the strings the browser gets', () => {
  for (const language of LANGUAGES) {
    for (const flavour of Object.keys(FLAVOURS) as Flavour[]) {
      it(`${language}, ${flavour}: every state the browser may render reads the same as with all strings`, () => {
        const all = getStrings(language);
        const some = clientStrings(all, flavour);
        expect(flavourOf(makeView(FLAVOURS[flavour]))).toBe(flavour);
        const expected = renderAll(language, flavour, all);
        const differences = renderAll(language, flavour, some).flatMap((html, i) => (html === expected[i] ? [] : [firstDifference(html, expected[i]!)]));
        expect(differences).toEqual([]);
      });
    }
  }

  it('leaves out the other flavours’ words and the pages the browser never shows', () => {
    const pay = clientStrings(getStrings('en'), 'pay');
    expect(pay['action.pay']).toBe('Pay {{amount}}');
    for (const key of ['subscription.heading', 'save.title', 'error.saveDeclined', 'notFound.title', 'provider.title', 'challenge.title'] as const) {
      expect(pay).not.toHaveProperty(key);
    }
    const save = clientStrings(getStrings('en'), 'save');
    expect(save).toHaveProperty('error.saveDeclined');
    expect(save).not.toHaveProperty('action.pay');
    expect(save).not.toHaveProperty('summary.heading');
  });
});
