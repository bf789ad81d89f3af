import { z } from 'zod';
import { awaitReturn, type GatewayCall, listCalls } from '../store/gateway-calls';
import { releaseFailedAttempt } from '../store/payments';
import { askGateway, type PaymentDeps } from './ask';
import { CALL_KINDS } from './call-kinds';
import { type Gateway, GatewayNotificationOnly, type HostedFieldsRequired, type RedirectRequired, type RedirectTo } from './gateway';
import { outcomeUnknown } from './outcome';
import { pageLanguageOf } from './page-language';
import { type SettledPayment, settlePayment } from './pay';
import { lookupInput, settleFound } from './reconcile';

// A pay call whose gateway sends the customer to the processor's page (docs/payments.md
// "The gateway interface"): the destination checked against what the gateway declares
// before anyone is sent there, the call kept open while the customer is away, and what
// comes back to the call's return route handed to the gateway to verify and read, then
// recorded exactly as a pay answer (one payment, whoever brings the answer first).

/** How long a customer has on the processor's page before the reconciliation asks the processor. */
export const REDIRECT_WAIT_MS = 15 * 60_000;

const redirectSchema = z.object({
  url: z.string().max(4096),
  method: z.enum(['GET', 'POST']).default('GET'),
  fields: z.record(z.string().max(256), z.string().max(16_384)).optional(),
});

/** A destination as it was checked: its method said. */
export type Checked = Required<Pick<RedirectTo, 'url' | 'method'>> & Pick<RedirectTo, 'fields'>;

/**
 * The destination, or why it is refused. A module's answer is read like any outside input.
 * The rule: an https origin the gateway declares in `origins.redirect` (exact origins,
 * checked at start, registry.ts); or, for a sandbox gateway that draws its page on ours only, this service's own origin
 * (it simulates its processor's page on our pages, and our origin is http on loopback in
 * development and tests); or the origin of a test double standing in for the processor
 * (`replacedOrigin`, set only when a processor URL is replaced, for tests). Never
 * credentials in the URL.
 */
export function checkRedirect(gateway: Gateway, answer: unknown, ownOrigin: string): { to: Checked } | { refused: string } {
  const parsed = redirectSchema.safeParse(answer);
  if (!parsed.success) return { refused: 'the redirect is not {url, method?: GET | POST, fields?}' };
  let url: URL;
  try {
    url = new URL(parsed.data.url);
  } catch {
    return { refused: 'the redirect URL is not absolute' };
  }
  if (url.username || url.password) return { refused: 'the redirect URL carries credentials' };
  if (url.protocol === 'https:' && gateway.origins?.redirect?.includes(url.origin)) return { to: parsed.data };
  // Only a sandbox that draws its processor's page on ours (`sandboxPage`): a real processor's test mode (sandbox too) never sends customers here.
  if (gateway.sandbox && gateway.sandboxPage !== undefined && url.origin === ownOrigin) return { to: parsed.data };
  // A test double standing in for the processor (gateway.ts `replacedOrigin`): its page, on loopback.
  if (gateway.replacedOrigin !== undefined && url.origin === gateway.replacedOrigin) return { to: parsed.data };
  return { refused: `${url.origin} is not an origin the gateway declares for redirects` };
}

export type Redirected = { kind: 'redirect'; redirect: Checked; reference: string };

/**
 * The gateway's redirect: followed only to a declared origin. A refused one is a gateway
 * that did nothing the customer could use: the attempt is released (the payment stays
 * open) and the refusal logged for the operator; the customer is sent nowhere.
 */
export async function followRedirect(
  deps: PaymentDeps,
  call: GatewayCall,
  gateway: Gateway,
  answer: RedirectRequired,
  ownOrigin: string,
): Promise<Redirected | SettledPayment> {
  const checked = checkRedirect(gateway, answer.redirect, ownOrigin);
  const until = new Date(deps.now().getTime() + REDIRECT_WAIT_MS);
  if ('to' in checked && (await awaitReturn(deps.database.db, call, { processorId: answer.processorId ?? null, redirect: checked.to, until }))) {
    return { kind: 'redirect', redirect: checked.to, reference: call.reference };
  }
  // Settled meanwhile (a notification came first): the page shows what it came to.
  if ('to' in checked) return { kind: 'checking' };
  return notFollowed(deps, call, gateway, checked.refused);
}

export type HostedFields = { kind: 'hosted_fields'; secret: string; returnUrl: string; reference: string };

/**
 * A `hosted-fields` payment (the processor's script in our page confirms it): the call waits
 * like a redirect's, its processor id recorded, and its destination is its own return route,
 * where the page's script brings the customer once the processor has answered. The secret
 * goes to the page only, never to the database.
 */
export async function awaitHostedFields(deps: PaymentDeps, call: GatewayCall, answer: HostedFieldsRequired, returnUrl: string): Promise<HostedFields | SettledPayment> {
  const until = new Date(deps.now().getTime() + REDIRECT_WAIT_MS);
  const waiting = await awaitReturn(deps.database.db, call, { processorId: answer.processorId, redirect: { url: returnUrl, method: 'GET' }, until });
  return waiting ? { kind: 'hosted_fields', secret: answer.secret, returnUrl, reference: call.reference } : { kind: 'checking' };
}

/** A destination refused: logged for the operator, the attempt released (the payment stays open), nobody sent anywhere. */
export async function notFollowed(deps: PaymentDeps, call: GatewayCall, gateway: Gateway, why: string): Promise<SettledPayment> {
  deps.log.error({ call: call.id, gateway: gateway.code, why }, 'gateway redirect not followed: nothing charged');
  await CALL_KINDS.pay.release(deps, call);
  return { kind: 'gateway_failed' };
}

/** A stored redirect of a call (`followRedirect`), to render a POST's form again; null if none. */
export function storedRedirect(call: GatewayCall): Checked | null {
  const parsed = redirectSchema.safeParse(call.request.redirect);
  return parsed.success ? parsed.data : null;
}

export type ReturnOutcome =
  | SettledPayment
  /** The call was settled already (another return, a notification, the reconciliation): nothing to do. */
  | { kind: 'settled_before' };

/**
 * What came back to a call's return route: the gateway verifies and reads it. A return that
 * does not verify settles nothing (the call stays open for a notification or a lookup); a
 * processor that has not decided, or a gateway that does not answer, leaves the payment
 * being checked; a decision is recorded by the same step as a pay answer, which settles the
 * call once, so two returns, or a return and a notification, make one payment.
 */
export async function settleReturn(
  deps: PaymentDeps,
  p: { call: GatewayCall; gateway: Gateway; query: Record<string, string>; body: Record<string, string> },
): Promise<ReturnOutcome> {
  const { call, gateway } = p;
  const read = gateway.return?.bind(gateway);
  if (call.state !== 'pending' || !read) return { kind: 'settled_before' };
  const processorId = call.processor_id ? { processorId: call.processor_id } : {};
  const answer = await askGateway(deps, gateway, (signal) => read({ reference: call.reference, signal, ...processorId, query: p.query, body: p.body }));
  if (answer.kind === 'not_acted') {
    deps.log.warn({ call: call.id, gateway: gateway.code, reason: answer.reason }, 'gateway return not verified: nothing settled');
    return { kind: 'gateway_failed' };
  }
  if (answer.kind === 'unknown' || answer.value.outcome === 'pending') {
    await outcomeUnknown(deps, call, answer.kind === 'unknown' ? answer.error : undefined);
    return { kind: 'checking' };
  }
  return settlePayment(deps, call, gateway, { kind: 'answered', value: answer.value });
}

/**
 * The customer left the processor's page without deciding and pays another way (Back, then
 * another method): a transaction's open redirect calls would hold every new attempt until
 * their wait runs out. Each is looked up first: what the processor decided is recorded
 * (a payment made there is the payment); one it does not know, or cannot be asked about
 * (only its notification tells: a Redsys terminal without the query service), is ended as
 * `abandoned`, which the reconciliation keeps checking where it can, and a success that
 * still arrives is reversed (reconcile.ts, notification.ts). True when one was ended, so
 * the new attempt may claim the transaction.
 */
export async function leaveOpenRedirects(deps: PaymentDeps, transactionId: string, environmentId: string): Promise<boolean> {
  const open = (await listCalls(deps.database.db, transactionId)).filter(
    (c) => c.kind === 'pay' && c.state === 'pending' && c.unknown_since === null && c.request.redirect !== undefined,
  );
  const gateways = open.length ? await deps.gateways.of(environmentId) : null;
  let left = false;
  for (const call of open) {
    const gateway = gateways?.find(call);
    const lookup = gateway?.lookup?.bind(gateway);
    if (!gateway || !lookup) continue;
    const answer = await askGateway(deps, gateway, (signal) => lookup(lookupInput(call, signal)));
    const notificationOnly = answer.kind === 'unknown' && answer.error instanceof GatewayNotificationOnly;
    if (answer.kind !== 'answered' && !notificationOnly) continue;
    if (answer.kind === 'answered' && answer.value.status !== 'not_found') {
      await settleFound(deps, call, answer.value, 'lookup');
      left ||= answer.value.status === 'failed';
      continue;
    }
    const attempt = { transactionId, gatewayId: gateway.id, outcome: 'rejected', cardBrand: null, cardLast4: null, language: pageLanguageOf(call), callId: call.id, state: 'abandoned' } as const;
    left = (await releaseFailedAttempt(deps.database.db, attempt, deps.now())) || left;
  }
  return left;
}
