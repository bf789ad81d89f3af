// What the server hands the browser next to the markup: enough to rebuild the exact tree.
import type { Strings } from '../i18n/messages';
import type { CheckoutView } from './view';

export const STATE_ELEMENT_ID = 'checkout-state';
export const APP_ELEMENT_ID = 'app';

export interface InitialState {
  view: CheckoutView;
  /**
   * The one language the page is in, only the strings the browser may render for this
   * page's flavour (client-strings.ts); the browser never loads the other locales.
   */
  strings: Partial<Strings>;
}

/**
 * The view as the browser needs it: without the order's lines and adjustments, which only
 * the order summary shows, and the browser keeps that as the server rendered it
 * (components/parts.tsx). A page of many lines no longer sends them twice. Nor the
 * transaction's id outside embed mode, the only one that reads it: JSON leaves out what is
 * undefined.
 */
export function browserView(view: CheckoutView): CheckoutView {
  return {
    ...view,
    transactionId: view.embed ? view.transactionId : undefined,
    lines: [],
    tax: null,
    shipping: null,
    coupon: null,
  };
}

const SCRIPT_UNSAFE = /[<>&\u2028\u2029]/g;

/**
 * JSON that is safe inside <script>: `</script>` and `<!--` cannot appear, and the
 * characters that once ended JavaScript string literals are escaped too. JSON.parse
 * reads the \u escapes back to the same text.
 */
export function serializeState(state: InitialState): string {
  return JSON.stringify(state).replace(
    SCRIPT_UNSAFE,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
