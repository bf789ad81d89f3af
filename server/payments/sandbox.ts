import { createHash, randomUUID } from 'node:crypto';
import { cardBrand, normalizeCardNumber, parseExpiry } from '../../widget/screen/card';
import type { ActionResult, CardSummary, Gateway, SettledResult } from './gateway';

// Sandbox gateways: behave like real processors, decided by the test data the customer
// types or clicks, so merchants and our tests can reach every outcome.

/** One card per outcome, shared with the tests and the docs. */
export const TEST_CARDS = {
  approved: '4242 4242 4242 4242',
  declined: '4000 0000 0000 0002',
  insufficientFunds: '4000 0000 0000 9995',
} as const;

const ok = async (): Promise<ActionResult> => ({ ok: true, reference: `sbx_${randomUUID()}` });

// A stored insufficient-funds card keeps failing when charged: its reference says so.
const NSF_PREFIX = 'sbx_nsf_';

// Idempotent as a processor's charge is: the same key, the same charge reference (derived
// from the key, so it holds across processes and restarts without any state here).
async function chargeStored(reference: string, _input: unknown, idempotencyKey?: string): Promise<SettledResult> {
  if (reference.startsWith(NSF_PREFIX)) return { outcome: 'insufficient_funds', card: null };
  const id = idempotencyKey ? createHash('sha256').update(`${reference}\n${idempotencyKey}`).digest('base64url').slice(0, 32) : randomUUID();
  return { outcome: 'approved', reference: `sbx_${id}`, card: null };
}

function summarize(fields: Record<string, string>): CardSummary {
  const number = normalizeCardNumber(fields.card_number ?? '');
  const expiry = parseExpiry(fields.card_expiry ?? '');
  return {
    brand: cardBrand(number),
    last4: number.slice(-4) || null,
    expMonth: expiry?.month ?? null,
    expYear: expiry?.year ?? null,
  };
}

export const sandboxCard: Gateway = {
  id: '0190f5a0-0000-7000-8000-000000000001',
  code: 'sandbox-card',
  name: 'Card',
  flow: 'form',
  fields: [
    { name: 'card_number', label: 'card.number', autocomplete: 'cc-number', inputMode: 'numeric', validate: 'card-number' },
    { name: 'card_expiry', label: 'card.expiry', autocomplete: 'cc-exp', inputMode: 'numeric', validate: 'card-expiry' },
    { name: 'card_cvc', label: 'card.cvc', autocomplete: 'cc-csc', inputMode: 'numeric', validate: 'card-cvc' },
    { name: 'card_name', label: 'card.name', autocomplete: 'cc-name', inputMode: 'text', validate: 'required' },
  ],
  currencies: null,
  enabled: true,
  async pay({ fields }) {
    const card = summarize(fields);
    const number = normalizeCardNumber(fields.card_number ?? '');
    if (number === normalizeCardNumber(TEST_CARDS.declined)) return { outcome: 'declined', card };
    if (number === normalizeCardNumber(TEST_CARDS.insufficientFunds)) return { outcome: 'insufficient_funds', card };
    return { outcome: 'approved', reference: `sbx_${randomUUID()}`, card };
  },
  capture: ok,
  refund: ok,
  void: ok,
  charge: chargeStored,
  // Stores any valid card but the declined one; the insufficient-funds card is stored and
  // then declines every charge, as a real card that runs dry would.
  async store(fields) {
    const card = summarize(fields);
    const number = normalizeCardNumber(fields.card_number ?? '');
    if (number === normalizeCardNumber(TEST_CARDS.declined)) return { outcome: 'declined', card };
    const prefix = number === normalizeCardNumber(TEST_CARDS.insufficientFunds) ? NSF_PREFIX : 'sbx_';
    return { outcome: 'approved', reference: `${prefix}${randomUUID()}`, card };
  },
};

/** Like PayPal or Bizum: the customer approves or rejects on the provider's own page. */
export const sandboxRedirect: Gateway = {
  id: '0190f5a0-0000-7000-8000-000000000002',
  code: 'sandbox-redirect',
  name: 'Sandbox Pay',
  flow: 'redirect',
  fields: [],
  currencies: null,
  enabled: true,
  async pay() {
    return { outcome: 'redirect' };
  },
  capture: ok,
  refund: ok,
  void: ok,
  charge: chargeStored,
};
