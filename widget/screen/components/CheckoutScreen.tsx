import type { Translator } from '../../i18n/messages';
import { provideScreen, useScreen } from '../context';
import type { CheckoutModel } from '../model';
import type { FocusTarget } from '../model-state';
import { Chrome } from './Chrome';
import { fieldId } from './Field';
import { MerchantHeader } from './OrderSummary';
import type { ScreenParts } from './parts';
import { PaymentForm } from './PaymentForm';

function focusElement(target: FocusTarget): HTMLElement | null {
  switch (target.kind) {
    case 'alert':
      return document.getElementById('checkout-alert');
    case 'status':
      return document.getElementById('status-title');
    case 'confirm':
      return document.getElementById('cancel-confirm-title');
    case 'cancel':
      return document.querySelector<HTMLElement>('button[name="action"][value="cancel"]');
    case 'field':
      return target.name === 'gateway'
        ? document.querySelector<HTMLElement>('input[name="gateway"]:checked, input[name="gateway"]')
        : document.getElementById(fieldId(target.name));
  }
}

/** Moves the focus where the model asks, once Preact has rendered the state that asked (browser only). */
export function followFocusRequests(model: CheckoutModel): () => void {
  return model.focusTarget.subscribe((target) => {
    if (target) setTimeout(() => focusElement(target)?.focus(), 0);
  });
}

/** The form while the payment is open, else its result (a part: see parts.tsx). */
function PaymentPane() {
  const { model, parts } = useScreen();
  const status = model.view.value.status;
  return status === 'pending' || status === 'declined' ? <PaymentForm /> : <parts.Result status={status} />;
}

/** The whole checkout screen; the same tree is rendered on the server and hydrated (see context.ts). */
export function CheckoutScreen({ model, i18n, parts }: { model: CheckoutModel; i18n: Translator; parts: ScreenParts }) {
  provideScreen({ model, i18n, parts });
  const view = model.view.value;
  const embed = view.embed !== null;
  const content = (
    <>
      <MerchantHeader />
      <div class="pane">
        <PaymentPane />
      </div>
    </>
  );
  return (
    <Chrome i18n={i18n} embed={embed} foot={<parts.Languages i18n={i18n} />} testMode={view.sandbox} back={model.payable.value && view.backUrl ? { href: view.backUrl, merchant: view.merchantName } : undefined}>
      {embed ? (
        // In the widget the screen is one part of the merchant's page, which has its own
        // main landmark: a named region, so assistive technology lists it once.
        <section class="layout" aria-label={i18n.t(view.saveCard ? 'save.title' : 'page.title', { merchant: view.merchantName })}>
          {content}
        </section>
      ) : (
        <main class="layout">{content}</main>
      )}
    </Chrome>
  );
}
