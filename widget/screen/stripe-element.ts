// Stripe's Payment Element in the payment page and the widget's frame (`hosted-fields`,
// docs/processors.md "Payment Element"): a chunk of its own, fetched only once a gateway that
// has it is chosen, so no other page pays for it. It loads Stripe.js from where the gateway
// says (https://js.stripe.com/v3/, or a test double's stand-in), never bundled: only its
// types are ours (@stripe/stripe-js). The fields are Stripe's, in Stripe's frames: the card
// never reaches our page's script nor our server. Pay asks our server for the payment
// (a PaymentIntent, its client_secret), Stripe.js confirms it (3-D Secure where the issuer
// asks), and the customer goes to the call's return route, where our server asks Stripe
// what came of it. If Stripe.js cannot load, nothing is mounted and the gateway keeps its
// redirect to Stripe Checkout.
import type { StripeConstructor, StripeElementLocale } from '@stripe/stripe-js';
import type { Signal } from '@preact/signals-core';
import type { CheckoutModel } from './model';
import type { HostedFields } from './model-state';
import type { HostedOption } from './view';

declare global {
  interface Window {
    Stripe?: StripeConstructor;
  }
}

/** Our page's languages in Stripe's words (`au` is Australian English). */
const LOCALES: Record<string, StripeElementLocale> = { en: 'en', es: 'es', fr: 'fr', au: 'en-GB' };

let mounted = false;

function load(src: string): Promise<StripeConstructor> {
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = src;
    script.onload = () => (window.Stripe ? resolve(window.Stripe) : reject(new Error('Stripe.js did not define Stripe')));
    script.onerror = reject;
    document.head.append(script);
  });
}

/** Mounts the Payment Element once per page, for `gateway`; the model pays with it from then on. */
export async function mountStripe(model: CheckoutModel, gateway: string, hosted: HostedOption): Promise<void> {
  if (mounted) return;
  mounted = true;
  const { script, key, amount, currency, hold } = hosted;
  const stripe = (await load(script))(key, { locale: LOCALES[model.view.value.language] ?? 'auto' });
  // Deferred: the PaymentIntent is made only on Pay, with the same amount, currency and capture.
  const elements = stripe.elements({ mode: 'payment', amount, currency: currency.toLowerCase(), captureMethod: hold ? 'manual' : 'automatic', allowedPaymentMethodTypes: ['card'] });
  const target = document.getElementById('hosted-fields');
  if (!target) return;
  elements.create('payment').mount(target);
  // The model's own signal (read-only to components): the glue is what mounts the fields.
  (model.hosted as Signal<HostedFields | null>).value = {
    gateway,
    // Stripe shows what is missing in its own fields.
    submit: async () => !(await elements.submit()).error,
    async confirm(clientSecret, returnTo) {
      // A decline or a failed 3-D Secure is read by our server from Stripe, like a success: every answer goes to the return route (in the widget, the frame's own).
      await stripe.confirmPayment({ elements, clientSecret, confirmParams: { return_url: returnTo }, redirect: 'if_required' });
      location.assign(returnTo);
    },
  };
}
