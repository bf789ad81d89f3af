// Which of the page language's strings the browser gets: those the hydrated screen may
// render for this page's flavour. A fresh page's state carries what the customer can
// bring about in the page itself (typing, the countdown, the expiry, a lost connection);
// the words of what only the server's answer brings (its errors, the results, the
// challenge) come with that answer (`strings` of a JSON outcome, outcomeStrings). The
// server renders every text of the first view itself; the rest of the locale never leaves
// it. Issue 29: all three flavours' strings were 3,065 of the page's 3,670 B gzip of state.
// test/unit/screen/client-strings.test.tsx renders each flavour's states with only these.
import type { Language } from '../i18n/language';
import type { Strings } from '../i18n/messages';
import { getStrings } from '../i18n/server';
import { type Flavour, flavourOf } from './flavour';
import { inTrial } from './components/SubscriptionSummary';
import type { CheckoutView, SubscriptionTerms } from './view';

/**
 * Words the hydrated screen never renders: the message pages', the provider's and the
 * challenge's own pages', a charge's confirm page's (server-only, checkout/confirm-page.tsx),
 * and those of the parts the browser keeps as the server rendered them (the order summary,
 * the language switcher: components/parts.tsx).
 */
const NEVER = /^(notFound|notEmbeddable|tooMany|unpayable|provider|summary|language|overlay|confirm)\.|^challenge\.title|^subscription\.title$/;

/** Words of one flavour only (flavour.ts), or of some: the keys' owners. */
const ONLY: [RegExp, Flavour[]][] = [
  // A sign-up stores the card as the save page does: the same errors, decline and challenge words.
  [/^(error\.save|challenge\.(bodySave|abandonSave)$|save\.declined\.title$)/, ['save', 'subscription']],
  [/^(subscription\.|action\.subscribe$|signup\.email$)/, ['subscription']],
  [/^(save\.|action\.saveCard$)/, ['save']],
  [/^(action\.pay|action\.cancel|challenge\.body|challenge\.abandon)$|^(cancel|expiry|status\.(paid|cancelled))\./, ['pay']],
  [/^status\.(declined\.|checking\.|processing$)/, ['pay', 'subscription']],
];

/**
 * Words only an answer of the server brings: its errors (the declines, the session, the
 * wait after too many), the results of a payment it settled, the challenge it asks for.
 * The expired result is not one: the page's own clock shows it; a sign-up's closed one is
 * (a sign-up has no clock: only the server says it was stopped).
 */
const ANSWERED =
  /^(error\.(card\.(declined|testInLive)|cardFieldsRefused|declined|insufficientFunds|gatewayFailed|gatewayTimeout|session|inProgress|tooManyAttempts|authentication|fieldsInvalid|save)|status\.(declined|paid|cancelled|checking|returning)|receipt|challenge|merchant\.labelPaid|(save|subscription)\.(declined|done|cancelled|labelDone|checking)|subscription\.closed)/;

type Stage = 'page' | 'answer' | 'all';

function pick(strings: Strings, flavour: Flavour, stage: Stage): Partial<Strings> {
  const out: Partial<Strings> = {};
  for (const [key, text] of Object.entries(strings) as [keyof Strings, string][]) {
    if (NEVER.test(key) || (stage !== 'all' && ANSWERED.test(key) !== (stage === 'answer'))) continue;
    const owners = ONLY.find(([pattern]) => pattern.test(key))?.[1];
    if (!owners || owners.includes(flavour)) out[key] = text;
  }
  return out;
}

/**
 * A sign-up's terms are the page's own (SubscriptionSummary.tsx): its price and period in its
 * interval only, and the words of its kind of terms, with a trial or without, past due or not.
 */
function dropOtherTerms(picked: Partial<Strings>, terms: SubscriptionTerms): void {
  const trial = inTrial(terms);
  const unused: Record<string, boolean> = {
    'subscription.consent': trial,
    'subscription.consentFrom': !trial,
    'subscription.then': !trial,
    'subscription.trial': !trial,
    'subscription.pastDue': !terms.pastDue,
    'subscription.firstCharge': terms.pastDue,
  };
  for (const key of Object.keys(picked) as (keyof Strings)[]) {
    const [, kind, interval] = /^(subscription\.(?:price|every))\.([a-z]+)_/.exec(key) ?? [];
    if (unused[key.replace(/_[a-z]+$/, '')] || (kind && interval !== terms.interval)) delete picked[key];
  }
}

/**
 * The state's strings: a fresh page's (open, nothing said yet) leave out what only an
 * answer brings; a page that already shows an answer (a decline, a result, a form posted
 * without JavaScript) gets them all.
 */
export function clientStrings(strings: Strings, view: Pick<CheckoutView, 'status' | 'error' | 'retryAt' | 'saveCard' | 'subscription' | 'embed'>): Partial<Strings> {
  const fresh = view.status === 'pending' && !view.error && !view.retryAt;
  const picked = pick(strings, flavourOf(view), fresh ? 'page' : 'all');
  // The page's title names the frame's region (CheckoutScreen); the hosted page's <title> is the server's.
  if (!view.embed) {
    delete picked['page.title'];
    delete picked['save.title'];
  }
  if (view.subscription) dropOtherTerms(picked, view.subscription);
  // The overlay's title and close button, drawn by the widget's frame (frame-overlay.ts).
  return view.embed ? { ...picked, 'overlay.title': strings['overlay.title'], 'overlay.close': strings['overlay.close'] } : picked;
}

const answered = new Map<string, Partial<Strings>>();

/** What every JSON answer of the page carries as its `strings`: the words a fresh page's state left out. */
export function outcomeStrings(language: Language, flavour: Flavour): Partial<Strings> {
  const key = `${language}:${flavour}`;
  let strings = answered.get(key);
  if (!strings) answered.set(key, (strings = pick(getStrings(language), flavour, 'answer')));
  return strings;
}
