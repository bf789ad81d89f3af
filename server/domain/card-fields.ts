// The names card details travel under in a pay post: our card form's (`card_*`) and the
// ones processors' APIs use (`number`, `cvc`, `exp_month`, `exp_year`). A gateway whose card
// entry is the processor's own (Stripe's fields or page) takes none of them: its pay
// refuses them before anything is sent (payments/stripe/pay.ts), and the payment page
// refuses a post that carries one (checkout/pay-routes.ts) rather than dropping it.

export const CARD_FIELDS = ['card_number', 'card_cvc', 'card_expiry', 'number', 'cvc', 'exp_month', 'exp_year'] as const;

/** The card fields among `fields` that carry a value. */
export const cardFieldsIn = (fields: Record<string, string>): string[] => CARD_FIELDS.filter((name) => (fields[name] ?? '') !== '');
