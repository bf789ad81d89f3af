/** A field a gateway asks the customer for; the screen renders fields, not gateways. */
export interface GatewayField {
  name: string; // form field name, e.g. "card_number"
  label: string; // locale key, e.g. "card.number"
  autocomplete: string; // e.g. "cc-number"
  inputMode: 'numeric' | 'text';
  /**
   * Named client+server validator: 'card-number' (Luhn, brand), 'card-expiry', 'card-cvc',
   * 'required', 'optional-email' (empty, or an e-mail address: the sign-up's own field).
   */
  validate: 'card-number' | 'card-expiry' | 'card-cvc' | 'required' | 'optional-email';
}
