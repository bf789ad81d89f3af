// Checked by `tsc --noEmit` (npm run typecheck), never run. Valid uses must compile; each
// invalid use must fail, or its @ts-expect-error becomes an error itself.
import type {
  CheckoutApi,
  CheckoutLanguage,
  CheckoutMessage,
  CheckoutStub,
  CompletedMessage,
  OverlayHandle,
} from '../../../widget/embed/checkout';
import type { createCheckout } from '../../../widget/embed/embed';
import type { PublicMessage } from '../../../widget/embed/protocol';
import type { Language } from '../../../widget/screen/view';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const assert = <T extends true>(): T => true as T;

// The merchant-facing copy must not drift from what the frame sends and the loader builds.
assert<Equal<CheckoutMessage, PublicMessage>>();
assert<Equal<ReturnType<typeof createCheckout>, CheckoutApi>>();
assert<Equal<CheckoutLanguage, Language>>();

declare const element: HTMLElement;
declare const checkout: CheckoutApi;
declare const stub: CheckoutStub;

// Valid uses.
const handle = checkout.mount(element, {
  token: 'tok',
  language: 'au',
  onReady: (m) => m.version satisfies 1,
  onComplete: (m) => {
    m.transaction_id satisfies string;
    m.order_id satisfies string | null;
    m.redirect satisfies string | null;
    return false;
  },
  onCancel: (m) => void m.status,
  onError: ({ code, message }) => void `${code}: ${message}`,
});
handle.destroy();
const overlay: OverlayHandle = checkout.open({ token: 'tok', onClose: () => {} });
overlay.close();
overlay.destroy();
element.addEventListener('checkout:completed', (event) => {
  event.detail satisfies CompletedMessage;
  event.preventDefault();
});
document.addEventListener('checkout:resize', (event) => void (event.detail.height satisfies number));
if (window.Checkout && 'version' in window.Checkout) window.Checkout.mount(element, { token: 'tok' });
stub.mount(element, { token: 'tok' });

function narrow(message: CheckoutMessage) {
  if (message.type === 'checkout:error') return message.code;
  if (message.type === 'checkout:resize') return message.height;
  // @ts-expect-error only error messages carry a code
  return message.code;
}
narrow;

// Invalid uses.
// @ts-expect-error the token is required
checkout.mount(element, {});
// @ts-expect-error an element is required for inline mounts
checkout.mount({ token: 'tok' });
// @ts-expect-error only the four checkout languages exist
checkout.open({ token: 'tok', language: 'de' });
// @ts-expect-error onClose belongs to the overlay only
checkout.mount(element, { token: 'tok', onClose: () => {} });
// @ts-expect-error an inline mount has no close(), only destroy()
handle.close();
// @ts-expect-error completion results never carry payment data
checkout.mount(element, { token: 'tok', onComplete: (m) => m.card_number });
// @ts-expect-error onComplete may return only false/nothing to decide on the redirect
checkout.mount(element, { token: 'tok', onComplete: () => 'stay' });
// @ts-expect-error the stub queues calls and returns no handle
stub.mount(element, { token: 'tok' }).destroy();
// @ts-expect-error the protocol version is part of the type
const wrongVersion: CheckoutMessage = { type: 'checkout:ready', version: 2 };
wrongVersion;
// @ts-expect-error internal messages are not part of the public protocol
const internal: CheckoutMessage = { type: 'checkout:escape', version: 1 };
internal;
// @ts-expect-error event details are typed per event
element.addEventListener('checkout:ready', (event) => event.detail.transaction_id);
