// `window.Checkout` as the loader builds it for one checkout origin: frames mounted inline
// (frame.ts) or in an overlay (overlay.ts).

import type { CheckoutApi } from './checkout';
import { mountFrame } from './frame';
import { openOverlay } from './overlay';

export function createCheckout(checkoutOrigin: string): CheckoutApi {
  return {
    version: 1,
    mount: (element, options) => mountFrame(checkoutOrigin, element, options),
    open: (options) => openOverlay(checkoutOrigin, options),
  };
}
