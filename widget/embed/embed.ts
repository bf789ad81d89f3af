// `window.Checkout` as the loader builds it for one checkout origin: frames mounted inline
// or as an overlay (frame.ts).

import type { CheckoutApi } from './checkout';
import { mountFrame } from './frame';

export function createCheckout(checkoutOrigin: string): CheckoutApi {
  return {
    version: 1,
    mount: (element, options) => mountFrame(checkoutOrigin, element, options),
    open: (options) => mountFrame(checkoutOrigin, document.body, options, true),
  };
}
