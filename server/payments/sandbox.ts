import { createHmac, timingSafeEqual } from 'node:crypto';
import { cardBrand, normalizeCardNumber, parseExpiry } from '../../widget/fields/card';
import { TEST_CARDS, type TestCardBehaviour, testData } from '../domain/test-cards';
import {
  type ActionResult,
  type Authentication,
  type CardSummary,
  type ChallengeAnswer,
  type Gateway,
  GATEWAY_INTERFACE_VERSION,
  type GatewayNotification,
  type SettledResult,
} from './gateway';
import { memoryBooks, type SandboxBooks } from './sandbox-books';
import { challengeSession, memorySessions, redirectSession, type SandboxSessions } from './sandbox-sessions';

// Sandbox gateways: behave like real processors, decided by the test data the customer
// types or clicks, so merchants and our tests can reach every outcome. Like a real
// processor they keep books of what they did for each of our references, so a repeated
// call acts once and `lookup` can answer, and the sessions a customer comes back to (a
// redirect's page, an issuer's challenge) with the key a redirect's return is signed with:
// in the database by default, for every process and after a restart, so a customer's
// steps may land on different processes behind a load balancer; or in this process's
// memory (SANDBOX_BOOKS; sandbox-books.ts, sandbox-sessions.ts).

/**
 * The sandbox issuer's challenges: what each asked-for payment will do once the customer
 * answers, by the gateway's challenge id, kept in `sessions` (sandbox-sessions.ts) so that
 * with database books the answer may reach any process.
 */
function challengeSessions(sessions: SandboxSessions) {
  return {
    async ask(reference: string, card: CardSummary, issuerDeclines: boolean): Promise<{ outcome: 'challenge'; challenge: string }> {
      const challenge = `chl_${reference}`;
      await sessions.open(challenge, { reference, card, issuerDeclines });
      return { outcome: 'challenge', challenge };
    },
    /** The payment once the customer answered: approved, or declined by a failed challenge or by the issuer. */
    async answer(challenge: string, answer: ChallengeAnswer): Promise<SettledResult | null> {
      const asked = await sessions.find(challenge, challengeSession);
      if (!asked) return null;
      if (answer === 'failed') return { outcome: 'declined', card: asked.card, authentication: { status: 'failed', method: 'challenge' } };
      const authentication: Authentication = { status: 'authenticated', method: 'challenge' };
      if (asked.issuerDeclines) return { outcome: 'declined', card: asked.card, authentication };
      return { outcome: 'approved', reference: `sbx_${asked.reference}`, card: asked.card, authentication };
    },
  };
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

/**
 * The sandbox processor's notifications: a JSON body `{reference, status, payment?,
 * reason?}` signed with HMAC-SHA256 under this published key in `Sandbox-Signature` (hex).
 * A sandbox moves no real money, so its key is no secret; a real gateway's comes from
 * GATEWAY_SETTINGS.
 */
const SANDBOX_NOTIFY_KEY = 'sandbox-notifications';

export const signSandboxNotification = (body: string) => createHmac('sha256', SANDBOX_NOTIFY_KEY).update(body).digest('hex');

async function sandboxNotification(input: { headers: Record<string, string | string[] | undefined>; body: Buffer }): Promise<GatewayNotification | null> {
  const signature = input.headers['sandbox-signature'];
  if (typeof signature !== 'string') return null;
  const expected = Buffer.from(signSandboxNotification(input.body.toString('utf8')), 'hex');
  const given = Buffer.from(signature, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  const note = JSON.parse(input.body.toString('utf8')) as { reference?: unknown; status?: unknown; payment?: unknown; reason?: unknown };
  if (typeof note.reference !== 'string') return null;
  if (note.status === 'succeeded' && typeof note.payment === 'string') {
    return { reference: note.reference, result: { status: 'succeeded', reference: note.payment, card: null } };
  }
  if (note.status === 'failed') {
    const reason = note.reason === 'insufficient_funds' || note.reason === 'refused' ? note.reason : 'declined';
    return { reference: note.reference, result: { status: 'failed', reason, card: null } };
  }
  return null;
}

/** The parts both sandbox gateways share: actions, charges of stored methods, lookups. */
function sandboxProcessor(books: SandboxBooks) {
  const ok = (prefix: string) => (input: { reference: string }) =>
    books.once<ActionResult>(input.reference, () => ({ ok: true, reference: `sbx_${prefix}_${input.reference}` }));
  return {
    capture: ok('cap'),
    refund: ok('ref'),
    void: ok('void'),
    charge: (input: { reference: string; method: string }) =>
      books.once<SettledResult>(input.reference, () =>
        input.method.startsWith(NSF_PREFIX)
          ? { outcome: 'insufficient_funds', card: null }
          : { outcome: 'approved', reference: `sbx_${input.reference}`, card: null },
      ),
    lookup: (input: { reference: string }) => books.lookup(input.reference),
    notification: sandboxNotification,
  };
}

export const SANDBOX_CARD_ID = '0190f5a0-0000-7000-8000-000000000001';
export const SANDBOX_REDIRECT_ID = '0190f5a0-0000-7000-8000-000000000002';

export function createSandboxCard(books: SandboxBooks = memoryBooks(), sessions: SandboxSessions = memorySessions()): Gateway {
  const processor = sandboxProcessor(books);
  const challenges = challengeSessions(sessions);
  return {
    version: GATEWAY_INTERFACE_VERSION,
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
    sandbox: true,
    testData: testData(...(Object.keys(TEST_CARDS) as TestCardBehaviour[])),
    async pay({ reference, fields }) {
      const card = summarize(fields);
      // A challenge moves nothing, so asking again is harmless: only settled answers are remembered.
      if (isCard(fields, TEST_CARDS.challenged)) return challenges.ask(reference, card, false);
      if (isCard(fields, TEST_CARDS.challengedThenDeclined)) return challenges.ask(reference, card, true);
      return books.once<SettledResult>(reference, () => {
        if (isCard(fields, TEST_CARDS.declined)) return { outcome: 'declined', card };
        if (isCard(fields, TEST_CARDS.insufficientFunds)) return { outcome: 'insufficient_funds', card };
        const authentication = isCard(fields, TEST_CARDS.frictionless) ? { authentication: { status: 'authenticated', method: 'frictionless' } as const } : {};
        return { outcome: 'approved', reference: `sbx_${reference}`, card, ...authentication };
      });
    },
    async resume({ reference, challenge, answer }) {
      const settled = await challenges.answer(challenge, answer);
      if (!settled) return { outcome: 'not_acted', reason: 'unknown challenge' };
      return books.once<SettledResult>(reference, () => settled);
    },
    ...processor,
    // Stores any valid card but the declined one; the insufficient-funds card is stored and
    // then declines every charge, as a real card that runs dry would. The challenge cards
    // are challenged when the caller can show the challenge, as when paying.
    async store({ reference, fields, authenticate }) {
      const card = summarize(fields);
      if (authenticate && isCard(fields, TEST_CARDS.challenged)) return challenges.ask(reference, card, false);
      if (authenticate && isCard(fields, TEST_CARDS.challengedThenDeclined)) return challenges.ask(reference, card, true);
      return books.once<SettledResult>(reference, () => {
        if (isCard(fields, TEST_CARDS.declined)) return { outcome: 'declined', card };
        const prefix = isCard(fields, TEST_CARDS.insufficientFunds) ? NSF_PREFIX : 'sbx_';
        const authentication = isCard(fields, TEST_CARDS.frictionless) ? { authentication: { status: 'authenticated', method: 'frictionless' } as const } : {};
        return { outcome: 'approved', reference: `${prefix}${reference}`, card, ...authentication };
      });
    },
  };
}

/** A signature equal to the expected one, compared in constant time (its length is no secret). */
function sameSignature(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Like PayPal or Bizum: the customer approves or rejects on the processor's own page. The
 * sandbox's page is served by the checkout on our own origin (`/pay/{token}/provider/{reference}/`,
 * the only origin a sandbox may send a customer to, payments/redirect.ts); its Approve and
 * Reject post to the call's return route a result signed under the sandbox's key
 * (`sessions`), which `return` verifies: a decision the customer typed or changed settles nothing.
 */
export function createSandboxRedirect(books: SandboxBooks = memoryBooks(), sessions: SandboxSessions = memorySessions()): Gateway {
  const processor = sandboxProcessor(books);
  const sign = async (reference: string, result: string) => createHmac('sha256', await sessions.signingKey()).update(`${reference}\n${result}`).digest('base64url');
  const sessionId = (reference: string) => `sbx_session_${reference}`;
  return {
    version: GATEWAY_INTERFACE_VERSION,
    id: SANDBOX_REDIRECT_ID,
    code: 'sandbox-redirect',
    name: 'Sandbox Pay',
    flow: 'redirect',
    fields: [],
    currencies: null,
    enabled: true,
    sandbox: true,
    async pay({ reference, returnUrl }) {
      if (!returnUrl) return { outcome: 'not_acted', reason: 'a redirect payment needs a return URL' };
      await sessions.open(sessionId(reference), { returnUrl });
      // Its page sits beside the return route, in the same embed mode (the same query).
      const page = new URL(`../../provider/${encodeURIComponent(reference)}/`, returnUrl);
      page.search = new URL(returnUrl).search;
      return { outcome: 'redirect', redirect: { url: page.href, method: 'GET' }, processorId: sessionId(reference) };
    },
    async sandboxPage({ reference }) {
      const url = (await sessions.find(sessionId(reference), redirectSession))?.returnUrl;
      if (!url) return null;
      const post = async (result: string) => ({ url, method: 'POST' as const, fields: { sandbox_result: result, sandbox_signature: await sign(reference, result) } });
      return { approve: await post('approve'), reject: await post('reject') };
    },
    async return({ reference, body }) {
      const result = body.sandbox_result ?? '';
      if (!['approve', 'reject'].includes(result) || !sameSignature(body.sandbox_signature ?? '', await sign(reference, result))) {
        return { outcome: 'not_acted', reason: 'the return is not signed by the sandbox' };
      }
      // The first decision is the processor's: a replayed or second return answers the same.
      return books.once<SettledResult>(reference, () =>
        result === 'approve' ? { outcome: 'approved', reference: `sbx_redirect_${reference}`, card: null } : { outcome: 'declined', card: null },
      );
    },
    ...processor,
  };
}

/**
 * The built-in gateways, in their fixed order, keeping their books in `books` and their
 * sessions in `sessions` (each its own memory without).
 */
export const sandboxGateways = (books?: SandboxBooks, sessions?: SandboxSessions): Gateway[] => [createSandboxCard(books, sessions), createSandboxRedirect(books, sessions)];
