import { cardBrand, normalizeCardNumber, parseExpiry } from '../../widget/fields/card';
import type { ActionResult, CardSummary, Gateway, LookupResult, SettledResult } from './gateway';

// Sandbox gateways: behave like real processors, decided by the test data the customer
// types or clicks, so merchants and our tests can reach every outcome. Like a real
// processor they remember what they did for each of our references, so a repeated call
// acts once and `lookup` can answer (in this process's memory: a restart forgets, as if
// the sandbox processor had never seen the call, which the reconciliation then releases).

/** One card per outcome, shared with the tests and the docs. */
export const TEST_CARDS = {
  approved: '4242 4242 4242 4242',
  declined: '4000 0000 0000 0002',
  insufficientFunds: '4000 0000 0000 9995',
} as const;

/** References remembered; the oldest are forgotten first. */
const MEMORY = 50_000;

/** What a sandbox processor did for each reference, and the one way it answers a repeat. */
function processorMemory() {
  const done = new Map<string, { answer: SettledResult | ActionResult; found: LookupResult }>();
  return {
    async once<T extends SettledResult | ActionResult>(reference: string, act: () => T): Promise<T> {
      const before = done.get(reference);
      if (before) return before.answer as T;
      const answer = act();
      done.set(reference, { answer, found: lookupOf(answer) });
      if (done.size > MEMORY) done.delete(done.keys().next().value!);
      return answer;
    },
    async lookup({ reference }: { reference: string }): Promise<LookupResult> {
      return done.get(reference)?.found ?? { status: 'not_found' };
    },
  };
}

function lookupOf(answer: SettledResult | ActionResult): LookupResult {
  if ('ok' in answer) return answer.ok ? { status: 'succeeded', reference: answer.reference, card: null } : { status: 'failed', reason: 'refused', card: null };
  if (answer.outcome === 'approved') return { status: 'succeeded', reference: answer.reference, card: answer.card };
  return { status: 'failed', reason: answer.outcome, card: answer.card };
}

// A stored insufficient-funds card keeps failing when charged: its reference says so.
const NSF_PREFIX = 'sbx_nsf_';

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

const isCard = (fields: Record<string, string>, card: string) => normalizeCardNumber(fields.card_number ?? '') === normalizeCardNumber(card);

/** The parts both sandbox gateways share: actions, charges of stored methods, lookups. */
function sandboxProcessor() {
  const memory = processorMemory();
  const ok = (prefix: string) => (input: { reference: string }) =>
    memory.once<ActionResult>(input.reference, () => ({ ok: true, reference: `sbx_${prefix}_${input.reference}` }));
  return {
    memory,
    capture: ok('cap'),
    refund: ok('ref'),
    void: ok('void'),
    charge: (input: { reference: string; method: string }) =>
      memory.once<SettledResult>(input.reference, () =>
        input.method.startsWith(NSF_PREFIX)
          ? { outcome: 'insufficient_funds', card: null }
          : { outcome: 'approved', reference: `sbx_${input.reference}`, card: null },
      ),
    lookup: memory.lookup,
  };
}

export const SANDBOX_CARD_ID = '0190f5a0-0000-7000-8000-000000000001';
export const SANDBOX_REDIRECT_ID = '0190f5a0-0000-7000-8000-000000000002';

export function createSandboxCard(): Gateway {
  const { memory, ...processor } = sandboxProcessor();
  return {
    id: SANDBOX_CARD_ID,
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
    pay: ({ reference, fields }) =>
      memory.once<SettledResult>(reference, () => {
        const card = summarize(fields);
        if (isCard(fields, TEST_CARDS.declined)) return { outcome: 'declined', card };
        if (isCard(fields, TEST_CARDS.insufficientFunds)) return { outcome: 'insufficient_funds', card };
        return { outcome: 'approved', reference: `sbx_${reference}`, card };
      }),
    ...processor,
    // Stores any valid card but the declined one; the insufficient-funds card is stored and
    // then declines every charge, as a real card that runs dry would.
    store: ({ reference, fields }) =>
      memory.once<SettledResult>(reference, () => {
        const card = summarize(fields);
        if (isCard(fields, TEST_CARDS.declined)) return { outcome: 'declined', card };
        const prefix = isCard(fields, TEST_CARDS.insufficientFunds) ? NSF_PREFIX : 'sbx_';
        return { outcome: 'approved', reference: `${prefix}${reference}`, card };
      }),
  };
}

/**
 * Like PayPal or Bizum: the customer approves or rejects on the provider's own page. The
 * sandbox provider page (checkout/provider-page.ts) sends the decision back as the
 * `decision` field; without one, the customer must first go there.
 */
export function createSandboxRedirect(): Gateway {
  const { memory, ...processor } = sandboxProcessor();
  return {
    id: SANDBOX_REDIRECT_ID,
    code: 'sandbox-redirect',
    name: 'Sandbox Pay',
    flow: 'redirect',
    fields: [],
    currencies: null,
    enabled: true,
    async pay({ reference, fields }) {
      if (fields.decision === undefined) return { outcome: 'redirect' };
      return memory.once<SettledResult>(reference, () =>
        fields.decision === 'approve' ? { outcome: 'approved', reference: `sbx_redirect_${reference}`, card: null } : { outcome: 'declined', card: null },
      );
    },
    ...processor,
  };
}

/** The built-in gateways, in their fixed order. */
export const sandboxGateways = (): Gateway[] => [createSandboxCard(), createSandboxRedirect()];
