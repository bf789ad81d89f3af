import type { Signal } from '@preact/signals-core';
import { renderToString } from 'preact-render-to-string';
import { describe, expect, it } from 'vitest';
import { LANGUAGES, type Language } from '../../../widget/i18n/language';
import type { Strings } from '../../../widget/i18n/messages';
import { getStrings } from '../../../widget/i18n/server';
import { createTranslator } from '../../../widget/i18n/translate';
import { clientStrings, outcomeStrings } from '../../../widget/screen/client-strings';
import { ChallengePanel } from '../../../widget/screen/components/ChallengePanel';
import { CheckoutScreen } from '../../../widget/screen/components/CheckoutScreen';
import { ResultPanel } from '../../../widget/screen/components/Outcome';
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

/** As the browser renders the screen, its result chunk loaded. */
const PARTS = { ...KEPT_PARTS, Result: ResultPanel };

const RECEIPT = { saleId: '0190f5a0-1234-7000-8000-00006f0a0042', amount: 8824, brand: 'visa', last4: '4242', paidAt: SERVER_NOW };

/** Writes a signal the model only exposes to read. */
const set = <T,>(signal: unknown, value: T) => ((signal as Signal<T>).value = value);

/** [name, view, what the customer did, whether only an answer of the server brings it]. */
type State = [string, Partial<CheckoutView>, ((model: CheckoutModel) => void) | undefined, boolean];

/** What the page itself says (card.ts's validators, a lost connection); the rest comes with answers. */
const PAGE_ERRORS = [
  'error.required', 'error.email', 'error.gatewayRequired', 'error.network', 'error.generic',
  'error.card.number.invalid', 'error.card.number.length', 'error.card.expiry.format', 'error.card.expiry.month', 'error.card.expiry.past', 'error.card.cvc.length',
];

function states(keys: string[], flavour: Flavour): State[] {
  // A card is saved on the save and sign-up pages only: error.save… is theirs
  // (server/checkout/save-routes.ts, signup-routes.ts, store-step.ts).
  const errors = keys.filter((key) => key.startsWith('error.') && (flavour !== 'pay' || !key.startsWith('error.save')));
  const answered = (key: string) => !PAGE_ERRORS.includes(key);
  return [
    ['pending', {}, undefined, false],
    ['pending, hydrated, in the last minutes', { expiresAt: '2026-03-01T12:05:00.000Z' }, (m) => m.start({ timeZone: 'Europe/Madrid' }), false],
    ['the redirect gateway', { selectedGateway: REDIRECT_GATEWAY.id }, undefined, false],
    ['paying without a gateway chosen', { selectedGateway: null }, (m) => void m.pay(), false],
    ['no gateway chosen, said by the server', { selectedGateway: null, error: { message: 'error.gatewayRequired', fields: { gateway: 'error.gatewayRequired' } } }, undefined, true],
    ['declined', { status: 'declined' }, undefined, true],
    ['too many attempts', { status: 'declined', retryAt: '2026-03-01T12:30:00.000Z', error: { message: 'error.tooManyAttempts', fields: {} } }, undefined, true],
    ...errors.map((key): State => [`message ${key}`, { error: { message: key, fields: {} } }, undefined, answered(key)]),
    ...errors.map((key): State => [`field error ${key}`, { error: { message: 'error.fieldsInvalid', fields: Object.fromEntries(CARD_GATEWAY.fields.map((f) => [f.name, key])) } }, undefined, true]),
    ...errors.filter((key) => !answered(key)).map((key): State => [`field error ${key}, found in the page`, {}, (m) => set(m.fieldErrors, { card_number: key, card_expiry: key, card_cvc: key }), false]),
    ['amex number typed', {}, (m) => m.setField('card_number', '3782 822463 10005'), false],
    ['processing', {}, (m) => set(m.pending, 'pay'), false],
    ['cancelling', { confirmCancel: true }, (m) => set(m.pending, 'cancel'), false],
    ['redirecting', { selectedGateway: REDIRECT_GATEWAY.id }, (m) => (set(m.pending, 'pay'), set(m.redirecting, true)), false],
    ['asked to confirm the cancel', { confirmCancel: true }, undefined, false],
    ['paid', { status: 'paid', receipt: RECEIPT }, undefined, true],
    ['paid, no brand, returning to the shop', { status: 'paid', receipt: { ...RECEIPT, brand: null } }, (m) => set(m.returningTo, 'https://shop.example/'), true],
    ['paid, hydrated (print)', { status: 'paid', receipt: RECEIPT, backUrl: 'https://shop.example/' }, (m) => m.start({ timeZone: 'UTC' }), true],
    ['cancelled', { status: 'cancelled', backUrl: 'https://shop.example/' }, undefined, true],
    // A payment's or a saved card's link expires on the page's clock; a sign-up has none: only an answer says it was stopped.
    ['expired', { status: 'expired', backUrl: 'https://shop.example/' }, undefined, flavour === 'subscription'],
    ['checking', { status: 'checking' }, undefined, true],
    ['embedded', { embed: { parentOrigin: 'https://shop.example', returnUrl: null, cancelUrl: null, justFinished: false } }, undefined, false],
    ['sandbox, with a way back', { sandbox: true, backUrl: 'https://shop.example/' }, undefined, false],
  ];
}

type Words = (view: CheckoutView, answered: boolean) => Partial<Strings>;

/** Each state and the challenge, each with the strings `words` gives it, as name: markup. */
function renderAll(language: Language, flavour: Flavour, words: Words, asLoaded: boolean, base = FLAVOURS[flavour]): string[] {
  const keys = Object.keys(getStrings(language));
  const out = states(keys, flavour).map(([name, overrides, act, answered]) => {
    const view = makeView({ language, ...base, ...overrides });
    const model = createCheckoutModel(view, {
      now: () => Date.parse(SERVER_NOW),
      timers: { setTimeout: () => 0, clearTimeout: () => undefined },
    });
    act?.(model);
    const i18n = createTranslator(language, words(view, answered));
    return `${name}: ${renderToString(<CheckoutScreen model={model} i18n={i18n} parts={PARTS} />)}`;
  });
  const fresh = makeView({ language, ...base });
  // The challenge is never a page's first view: it opens from an answer.
  if (!asLoaded) {
    const challenge = createTranslator(language, words(fresh, true));
    out.push(`challenge: ${renderToString(<ChallengePanel i18n={challenge} merchant="Shop" amount="€1.00" heading="h2" saving={flavour !== 'pay'} onAnswer={() => undefined} />)}`);
  }
  // What the frame reports to the merchant's page when the link expires (embed-mode.ts).
  out.push(`expired report: ${createTranslator(language, words(fresh, false)).t('status.expired.title')}`);
  return out;
}

/** The state's name and where the two renders part, briefly. */
function firstDifference(actual: string, expected: string): string {
  let at = 0;
  while (actual[at] === expected[at]) at++;
  return `${actual.slice(0, actual.indexOf(':'))}: …${actual.slice(at - 40, at + 40)}… instead of …${expected.slice(at - 40, at + 40)}…`;
}

function differences(language: Language, flavour: Flavour, words: Words, asLoaded: boolean, base = FLAVOURS[flavour]): string[] {
  const expected = renderAll(language, flavour, () => getStrings(language), asLoaded, base);
  return renderAll(language, flavour, words, asLoaded, base).flatMap((html, i) => (html === expected[i] ? [] : [firstDifference(html, expected[i]!)]));
}

describe('clientStrings and outcomeStrings: the strings the browser gets', () => {
  for (const language of LANGUAGES) {
    for (const flavour of Object.keys(FLAVOURS) as Flavour[]) {
      it(`${language}, ${flavour}: every state reads the same as with all strings, loaded as a page or reached from a fresh one`, () => {
        const all = getStrings(language);
        const fresh = makeView({ language, ...FLAVOURS[flavour] });
        expect(flavourOf(fresh)).toBe(flavour);
        // A page loaded in that state: its state's strings.
        expect(differences(language, flavour, (view) => clientStrings(all, view), true)).toEqual([]);
        // Reached from a fresh page of the same kind (hosted, or in the widget's frame): its
        // state's strings, and those every answer brings.
        const answer = outcomeStrings(language, flavour);
        expect(differences(language, flavour, (view, answered) => ({ ...clientStrings(all, { ...fresh, embed: view.embed }), ...(answered ? answer : {}) }), false)).toEqual([]);
      });
    }
  }

  // A sign-up's state has the words of its own kind of terms (with or without a trial, past
  // due), and of its interval: each kind reads the same as with all strings.
  const TERMS = FLAVOURS.subscription.subscription!;
  for (const [name, terms] of [
    ['without a trial, weekly', { ...TERMS, trialDays: 0, interval: 'week', intervalCount: 2 }],
    ['past due, yearly', { ...TERMS, pastDue: true, interval: 'year' }],
    ['past due with trial days left, daily', { ...TERMS, pastDue: true, trialDays: 3, interval: 'day', intervalCount: 1 }],
  ] as const) {
    it(`a sign-up ${name}: every state reads the same, in each language`, () => {
      for (const language of LANGUAGES) {
        const all = getStrings(language);
        const base = { subscription: terms };
        const fresh = makeView({ language, ...base });
        expect(differences(language, 'subscription', (view) => clientStrings(all, view), true, base)).toEqual([]);
        const answer = outcomeStrings(language, 'subscription');
        expect(differences(language, 'subscription', (view, answered) => ({ ...clientStrings(all, { ...fresh, embed: view.embed }), ...(answered ? answer : {}) }), false, base)).toEqual([]);
      }
    });
  }

  it('leaves out the other flavours’ words and the pages the browser never shows', () => {
    const pay = { ...clientStrings(getStrings('en'), makeView()), ...outcomeStrings('en', 'pay') };
    expect(pay['action.pay']).toBe('Pay {{amount}}');
    for (const key of ['subscription.heading', 'save.title', 'error.saveDeclined', 'notFound.title', 'provider.title', 'challenge.title'] as const) {
      expect(pay).not.toHaveProperty(key);
    }
    const save = { ...clientStrings(getStrings('en'), makeView({ saveCard: true })), ...outcomeStrings('en', 'save') };
    expect(save).toHaveProperty('error.saveDeclined');
    expect(save).not.toHaveProperty('action.pay');
    expect(save).not.toHaveProperty('summary.heading');
    expect(save).not.toHaveProperty('signup.email');
  });

  it('gives a save page a card’s words, not a payment’s, while its post is under way and while the card is checked', () => {
    const all = getStrings('en');
    const render = (overrides: Partial<CheckoutView>, act?: (model: CheckoutModel) => void) => {
      const view = makeView({ saveCard: true, ...overrides });
      const model = createCheckoutModel(view, { now: () => Date.parse(SERVER_NOW), timers: { setTimeout: () => 0, clearTimeout: () => undefined } });
      act?.(model);
      return renderToString(<CheckoutScreen model={model} i18n={createTranslator('en', { ...clientStrings(all, view), ...outcomeStrings('en', 'save') })} parts={PARTS} />);
    };
    const saving = render({}, (m) => set(m.pending, 'pay'));
    expect(saving).toContain(all['save.processing']);
    const checking = render({ status: 'checking' });
    expect(checking).toContain(all['save.checking.title']);
    for (const html of [saving, checking]) expect(html).not.toMatch(/your payment/);
    const save = { ...clientStrings(all, makeView({ saveCard: true, status: 'checking' })), ...outcomeStrings('en', 'save') };
    expect(save).not.toHaveProperty('status.checking.title');
    expect(save).not.toHaveProperty('status.processing');
  });

  it('gives a sign-up the words of its own interval, and the frame its region’s name', () => {
    const weekly = FLAVOURS.subscription.subscription!;
    const signUp = clientStrings(getStrings('en'), makeView({ subscription: { ...weekly, interval: 'week', intervalCount: 2 } }));
    expect(signUp).toHaveProperty('subscription.price.week_other');
    expect(signUp).toHaveProperty('subscription.every.week_one');
    expect(signUp).not.toHaveProperty('subscription.price.month_one');
    expect(signUp).not.toHaveProperty('subscription.every.month_other');
    expect(signUp).toHaveProperty('signup.email');
    expect(clientStrings(getStrings('en'), makeView())).not.toHaveProperty('page.title');
    const frame = makeView({ embed: { parentOrigin: 'https://shop.example', returnUrl: null, cancelUrl: null, justFinished: false } });
    expect(clientStrings(getStrings('en'), frame)).toHaveProperty('page.title');
    expect(clientStrings(getStrings('en'), { ...frame, saveCard: true })).toHaveProperty('save.title');
  });
});

describe('a fresh page’s state', () => {
  it('leaves the answers’ words to the answers, and takes them all once an answer is shown', () => {
    const all = getStrings('en');
    const fresh = clientStrings(all, makeView());
    for (const key of ['error.declined', 'status.paid.title', 'receipt.amount', 'challenge.heading'] as const) {
      expect(fresh).not.toHaveProperty(key);
      expect(outcomeStrings('en', 'pay')).toHaveProperty(key);
      expect(clientStrings(all, makeView({ status: 'declined' }))).toHaveProperty(key);
    }
    for (const key of ['error.network', 'error.card.number.invalid', 'status.expired.title', 'action.pay'] as const) expect(fresh).toHaveProperty(key);
  });
});
