// Which of the page language's strings the browser gets (the state's `strings`): those
// the hydrated screen may render for this page's flavour, now or after the customer acts
// (errors, the processing and result screens, the challenge). The server renders every
// text of the first view itself; the rest of the locale never leaves it. Issue 29: all
// three flavours' strings were 3,065 of the page's 3,670 B gzip of state.
// test/unit/screen/client-strings.test.tsx renders each flavour's states with only these.
import type { Strings } from '../i18n/messages';
import type { Flavour } from './flavour';

/**
 * Words the hydrated screen never renders: the message pages', the provider's and the
 * challenge's own pages', and those of the parts the browser keeps as the server rendered
 * them (the order summary, the language switcher: components/parts.tsx).
 */
const NEVER = /^(notFound|notEmbeddable|tooMany|provider|summary|language)\.|^challenge\.title/;

/** Words of one flavour only (flavour.ts), or of some: the keys' owners. */
const ONLY: [RegExp, Flavour[]][] = [
  [/^(subscription\.|action\.subscribe$)/, ['subscription']],
  [/^(save\.|action\.saveCard$)/, ['save']],
  // A sign-up stores the card as the save page does: the same errors and challenge words.
  [/^(error\.save|challenge\.(bodySave|abandonSave)$)/, ['save', 'subscription']],
  [/^(action\.pay|action\.cancel|challenge\.body|challenge\.abandon)$|^(cancel|expiry|status\.(paid|cancelled))\./, ['pay']],
  [/^status\.declined\./, ['pay', 'subscription']],
];

export function clientStrings(strings: Strings, flavour: Flavour): Partial<Strings> {
  const out: Partial<Strings> = {};
  for (const [key, text] of Object.entries(strings) as [keyof Strings, string][]) {
    if (NEVER.test(key)) continue;
    const owners = ONLY.find(([pattern]) => pattern.test(key))?.[1];
    if (!owners || owners.includes(flavour)) out[key] = text;
  }
  return out;
}
