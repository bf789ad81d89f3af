import type { CheckoutView, GatewayOption } from '../../../widget/screen/view';

export const CARD_GATEWAY: GatewayOption = {
  id: 'gw-card',
  name: 'Card',
  flow: 'form',
  fields: [
    { name: 'card_number', label: 'card.number', autocomplete: 'cc-number', inputMode: 'numeric', validate: 'card-number' },
    { name: 'card_expiry', label: 'card.expiry', autocomplete: 'cc-exp', inputMode: 'numeric', validate: 'card-expiry' },
    { name: 'card_cvc', label: 'card.cvc', autocomplete: 'cc-csc', inputMode: 'numeric', validate: 'card-cvc' },
    { name: 'card_name', label: 'card.name', autocomplete: 'cc-name', inputMode: 'text', validate: 'required' },
  ],
};

export const REDIRECT_GATEWAY: GatewayOption = { id: 'gw-redirect', name: 'Sandbox Pay', flow: 'redirect', fields: [] };

export const SERVER_NOW = '2026-03-01T12:00:00.000Z';

/** A pending EUR checkout with every kind of line; override what a test is about. */
export function makeView(overrides: Partial<CheckoutView> = {}): CheckoutView {
  return {
    language: 'en',
    merchantName: 'Tienda Ejemplo',
    orderId: 'A-1001',
    currency: 'EUR',
    exponent: 2,
    lines: [
      { name: 'Coffee beans', description: 'Whole, 1 kg', quantity: '2', unitPrice: 1250, lineTotal: 2500 },
      { name: 'Grinder', description: null, quantity: '1', unitPrice: 4999, lineTotal: 4999 },
    ],
    itemsPrice: 7499,
    tax: { name: 'VAT 21%', value: 1575 },
    shipping: { name: 'Express', value: 500 },
    coupon: { name: 'WELCOME10', value: 750 },
    totalPrice: 8824,
    expiresAt: '2026-03-08T12:00:00.000Z',
    serverNow: SERVER_NOW,
    status: 'pending',
    gateways: [CARD_GATEWAY, REDIRECT_GATEWAY],
    selectedGateway: CARD_GATEWAY.id,
    error: null,
    receipt: null,
    csrf: 'csrf-token-123',
    embed: null,
    ...overrides,
  };
}

export const ASSETS = { scripts: ['/assets/client-abc.js'], styles: ['/assets/client-abc.css'] };
