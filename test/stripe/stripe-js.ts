import type { IncomingMessage, ServerResponse } from 'node:http';

// The double's stand-in for Stripe.js (`{double}/v3/`, what STRIPE_JS_URL points the payment
// page at in tests; Stripe's is https://js.stripe.com/v3/). It implements only what our glue
// uses (widget/screen/stripe-element.ts), typed by @stripe/stripe-js: `Stripe(pk)`,
// `elements({mode, amount, currency, captureMethod, allowedPaymentMethodTypes})`, `create('payment')`,
// `mount`, `on('change' | 'ready')`, `elements.submit()` and `confirmPayment({elements,
// clientSecret, confirmParams: {return_url}, redirect: 'if_required'})`. Its "Payment
// Element" is one labelled card-number field drawn in the page (Stripe's is in frames of
// js.stripe.com); Stripe's test numbers decide what happens (publishable.ts). Confirming
// asks the double's API under the publishable key, as Stripe.js asks Stripe's: a card that
// needs 3-D Secure goes to the double's issuer page (a full-page redirect, where Stripe.js
// would show the issuer in a frame of its own) and comes back to `return_url`.

const SOURCE = `(() => {
  const api = new URL(document.currentScript.src).origin;
  const post = async (path, fields) => {
    const answer = await fetch(api + path, { method: 'POST', body: new URLSearchParams(fields) });
    return { ok: answer.ok, body: await answer.json() };
  };
  window.Stripe = (key) => {
    if (!/^pk_test_/.test(key)) throw new Error('stand-in Stripe.js: a test publishable key only');
    return {
      elements(options) {
        if (options.mode !== 'payment' || !options.amount || !options.currency) throw new Error('stand-in Stripe.js: elements({mode: "payment", amount, currency})');
        let input = null;
        const number = () => (input ? input.value.replace(/\\s/g, '') : '');
        const complete = () => /^[0-9]{16}$/.test(number());
        return {
          number,
          create(type) {
            if (type !== 'payment') throw new Error('stand-in Stripe.js: the payment element only');
            const handlers = {};
            const element = {
              mount(target) {
                const host = typeof target === 'string' ? document.querySelector(target) : target;
                const field = document.createElement('div');
                field.className = 'stand-in-payment-element';
                const label = document.createElement('label');
                label.htmlFor = 'stand-in-card-number';
                label.textContent = 'Card number (Stripe test double)';
                input = document.createElement('input');
                Object.assign(input, { id: 'stand-in-card-number', inputMode: 'numeric', autocomplete: 'cc-number' });
                input.addEventListener('input', () => handlers.change && handlers.change({ elementType: 'payment', empty: !input.value, complete: complete() }));
                field.append(label, input);
                host.append(field);
                if (handlers.ready) handlers.ready({ elementType: 'payment' });
              },
              on(event, handler) {
                handlers[event] = handler;
                return element;
              },
            };
            return element;
          },
          async submit() {
            return complete() ? {} : { error: { type: 'validation_error', code: 'incomplete_number', message: 'Your card number is incomplete.' } };
          },
        };
      },
      async confirmPayment({ elements, clientSecret, confirmParams, redirect }) {
        const id = clientSecret.split('_secret_')[0];
        const method = await post('/v1/payment_methods', { key, type: 'card', 'card[number]': elements.number() });
        if (!method.ok) return { error: method.body.error };
        const confirmed = await post('/v1/payment_intents/' + id + '/confirm', { key, client_secret: clientSecret, payment_method: method.body.id, return_url: confirmParams.return_url });
        if (!confirmed.ok) return { error: confirmed.body.error };
        const intent = confirmed.body;
        const next = intent.next_action && intent.next_action.redirect_to_url;
        if (next || redirect !== 'if_required') {
          window.location.assign(next ? next.url : confirmParams.return_url);
          return new Promise(() => {});
        }
        return { paymentIntent: intent };
      },
    };
  };
})();
`;

/** Answers a request for the stand-in Stripe.js, or false when it is not one. */
export function standInStripeJs(req: IncomingMessage, res: ServerResponse, path: string): boolean {
  if (req.method !== 'GET' || path !== '/v3/') return false;
  res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' });
  res.end(SOURCE);
  return true;
}
