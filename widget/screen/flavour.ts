import type { MessageKey } from '../i18n/messages';
import type { CheckoutView } from './view';

// One screen, three pages: a payment, a subscription's sign-up (/pay/sub_…/) and saving a
// card (/pay/sav_…/). Where their words differ, a component names the three keys once.

export type Flavour = 'pay' | 'subscription' | 'save';

export const flavourOf = (view: Pick<CheckoutView, 'saveCard' | 'subscription'>): Flavour =>
  view.saveCard ? 'save' : view.subscription ? 'subscription' : 'pay';

/** The key of this page's flavour. */
export const keyOf = (view: Pick<CheckoutView, 'saveCard' | 'subscription'>, keys: Record<Flavour, MessageKey>): MessageKey => keys[flavourOf(view)];
