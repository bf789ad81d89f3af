import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { renderDocument, renderMessage } from '../../widget/screen/document';
import { isLanguage, resolveLanguage } from '../../widget/i18n/language';
import { outcomeStrings } from '../../widget/screen/client-strings';
import type { CheckoutView, Language } from '../../widget/screen/view';
import { baseUrlOf } from '../http/route';
import type { Gateway, GatewayOrigins } from '../payments/gateway';
import type { GatewaySet } from '../payments/registry';
import type { Merchant } from '../store/environments';
import { sameOriginPost, validCsrf } from './csrf';
import { sendEmbedRefusal } from './embed-refusal';
import { formBodyFailure } from './form-body';
import type { CheckoutContext } from './page';
import { allowedFrameOrigins, applyPageHeaders, mergeOrigins, newNonce, redirectOrigins } from './security';
import { backUrlOf } from './view-model';

// The shell every hosted page answers through: a payment's /pay/{token}/, a save page's
// /pay/sav_…/, a subscription's sign-up /pay/sub_…/ and a charge's confirmation
// /pay/confirm/cfm_…/ (which renders itself, and reads and secures itself here). Reading the page a token names
// (its language, whether an allowed origin frames it), its security headers (a fresh CSP
// nonce, frame ancestors, the origins its forms may lead to), a post's CSRF and origin
// checks, and one set of responders: a view as HTML or JSON, a redirect, the way back to
// the shop. A kind of page is a descriptor (HostedKind): what it reads, how it shows
// itself and where it sends the customer; its security rules are these.

export type Flavour = 'pay' | 'save' | 'subscription';

/** What a hosted page's row has for the shell: its token and the shop's URLs. */
export interface HostedRow {
  token?: string | null;
  environment_id: string;
  return_url?: string | null;
  cancel_url?: string | null;
}

export interface Found<R extends HostedRow = HostedRow> {
  row: R;
  merchant: Merchant;
}

/** What an answer may show beside the page's state; each kind shows what it has. */
export interface HostedExtra {
  /** This answer is the result of the customer's own action (see EmbedView.justFinished). */
  justFinished?: boolean;
  /** The customer left a page that stays open (a save page, a sign-up). */
  cancelled?: boolean;
  /** From the last post: a message key and per-field keys. */
  error?: CheckoutView['error'];
  chosenGateway?: string | null;
  declined?: boolean;
  /** The no-JavaScript cancel's first step: ask to confirm. */
  confirmCancel?: boolean;
  /** The fields of a failed form post, to fill them again (never a card number or CVC). */
  values?: Record<string, string>;
  /** After too many declines: when paying is possible again. */
  retryAt?: string;
}

export type HostedPage<F extends Found> = F & {
  /** The environment's gateways, its connected processors' included (registry.ts `of`). */
  gateways: GatewaySet;
  /** What the gateways the page offers add to its CSP (payments/gateway.ts `origins`). */
  gatewayOrigins: GatewayOrigins;
  language: Language;
  embed: { parentOrigin: string } | null;
  frameAncestors: string[];
  wantsJson: boolean;
  /** The request's logger (http/logging.ts), for the use cases the answer calls (scopedDeps). */
  readonly log: Logger;
};

export interface HostedKind<F extends Found> {
  /** Which strings the hydrated screen gets with an answer (client-strings.ts). */
  flavour: Flavour;
  /** Whether a token can name this kind's page, checked before any read. */
  token: RegExp;
  find(ctx: CheckoutContext, token: string): Promise<F | undefined>;
  /** The language the page's row asked for, if any (else the browser's). */
  language(row: F['row']): string | null;
  /** The gateways the page offers (their origins join its CSP); `live`: the environment's mode. */
  offered(gateways: GatewaySet, found: F, live: boolean): readonly Gateway[];
  view(ctx: CheckoutContext, page: HostedPage<F>, extra: HostedExtra): Promise<CheckoutView>;
  /** Where the customer goes once done or gone (signed where the kind signs its returns); null: the page stays. */
  returnTo(ctx: CheckoutContext, page: HostedPage<F>, how: 'completed' | 'cancelled'): Promise<string | null>;
  /** The document's title, for a kind with one of its own. */
  title?(page: HostedPage<F>): string;
}

export type RedirectKind = 'provider' | 'completed' | 'cancelled' | 'challenge';

/** What a request to a hosted page comes to, before it is answered. */
export type HostedOutcome =
  | { kind: 'redirect'; location: string; redirectKind: RedirectKind; status?: number }
  /** `hosted-fields`: the processor's script in the page confirms the payment with `secret`, then goes to `location` (the call's return route). */
  | { kind: 'confirm'; secret: string; location: string }
  | ({ kind: 'view'; status: number; /** Seconds, sent as Retry-After (429). */ retryAfter?: number } & HostedExtra);

const urlsOf = (row: HostedRow) => ({ return_url: row.return_url ?? null, cancel_url: row.cancel_url ?? null });

/** What loading a page reads of its kind: all a page that renders itself (the confirm page, confirm-routes.ts) declares. */
export type LoadableKind<F extends Found> = Pick<HostedKind<F>, 'token' | 'find' | 'language' | 'offered'>;

/** The language the customer picked with `?lang=` (the screen's language links), which wins over any other. */
export const requestedLanguage = (req: Request): Language | null => (typeof req.query.lang === 'string' && isLanguage(req.query.lang) ? req.query.lang : null);

/** The page a request's token names, or null: a token of another shape, or one that names nothing. */
export async function loadHosted<F extends Found>(kind: LoadableKind<F>, ctx: CheckoutContext, req: Request): Promise<HostedPage<F> | null> {
  const token = String(req.params.token);
  const found = kind.token.test(token) ? await kind.find(ctx, token) : undefined;
  if (!found) return null;
  const language = requestedLanguage(req) ?? resolveLanguage(kind.language(found.row), req.get('accept-language'));
  const allowed = allowedFrameOrigins(found.merchant.allowedOrigins, urlsOf(found.row));
  const origin = req.query.embed === '1' && typeof req.query.origin === 'string' ? req.query.origin : null;
  // Unknown origins get no embed mode and frame-ancestors 'none': the browser refuses to show it.
  const embed = origin !== null && allowed.includes(origin) ? { parentOrigin: origin } : null;
  const wantsJson = req.is('application/json') === 'application/json';
  const gateways = await ctx.deps.gateways.of(found.row.environment_id);
  const gatewayOrigins = mergeOrigins(kind.offered(gateways, found, !found.merchant.sandbox));
  return { ...found, gateways, gatewayOrigins, language, embed, frameAncestors: embed ? allowed : [], wantsJson, get log() { return req.log; } };
}

/** Re-reads what the page found (its row, and what the kind reads with it), so the answer shows the state a write produced. */
export async function reloadHosted<F extends Found>(kind: HostedKind<F>, ctx: CheckoutContext, page: HostedPage<F>): Promise<HostedPage<F>> {
  const found = page.row.token ? await kind.find(ctx, page.row.token) : undefined;
  if (found) Object.assign(page, found);
  return page;
}

/** The page's security headers (its frame ancestors, its forms' targets); returns the nonce they allow. */
export function secureHosted(res: Response, page: HostedPage<Found>): string {
  const nonce = newNonce();
  applyPageHeaders(res, { nonce, frameAncestors: page.frameAncestors, formTargets: redirectOrigins(urlsOf(page.row)), gatewayOrigins: page.gatewayOrigins });
  return nonce;
}

/** Answers an outcome: as JSON to the hydrated screen, else as the page or a 303 (post, redirect, get). */
export async function respondHosted<F extends Found>(ctx: CheckoutContext, kind: HostedKind<F>, res: Response, page: HostedPage<F>, outcome: HostedOutcome): Promise<void> {
  const nonce = secureHosted(res, page);
  const strings = outcomeStrings(page.language, kind.flavour);
  if (outcome.kind === 'redirect') {
    if (!page.wantsJson) return void res.redirect(outcome.status ?? 303, outcome.location);
    // Back to the shop: the answer carries the finished view, so the screen shows the
    // confirmation before it leaves.
    const shown = outcome.redirectKind === 'completed' ? { view: await kind.view(ctx, page, {}) } : {};
    return void res.json({ outcome: 'redirect', location: outcome.location, kind: outcome.redirectKind, ...shown, strings });
  }
  // Asked for by the hydrated screen only; a form post is sent to the return route, which asks the processor.
  if (outcome.kind === 'confirm') return void (page.wantsJson ? res.json({ outcome: 'confirm', secret: outcome.secret, location: outcome.location, strings }) : res.redirect(303, outcome.location));
  const { kind: _view, status, retryAfter, ...extra } = outcome;
  if (retryAfter) res.setHeader('Retry-After', String(retryAfter));
  const view = await kind.view(ctx, page, extra);
  if (page.wantsJson) return void res.status(status).json({ outcome: 'view', view, strings });
  res.status(status).type('html').send(renderDocument({ view, nonce, assets: ctx.screenAssets(), title: kind.title?.(page) }));
}

/**
 * The customer paid, saved, signed up or left: to return_url or cancel_url, except in the
 * widget's frame (it reports the result and the merchant's page moves on) or without one
 * (the page shows the result).
 */
export async function finishedHosted<F extends Found>(ctx: CheckoutContext, kind: HostedKind<F>, page: HostedPage<F>, how: 'completed' | 'cancelled'): Promise<HostedOutcome> {
  const url = await kind.returnTo(ctx, page, how);
  if (url && !page.embed) return { kind: 'redirect', location: url, redirectKind: how };
  return { kind: 'view', status: 200, justFinished: page.embed !== null, cancelled: how === 'cancelled' };
}

/** The post came from this page: the browser's own origin headers and the page's CSRF token. */
async function trustedPost(ctx: CheckoutContext, req: Request, page: HostedPage<Found>, csrf: string | undefined): Promise<boolean> {
  return sameOriginPost(req, baseUrlOf(req, ctx.deps)) && !!page.row.token && validCsrf(await ctx.csrfSecret(), page.row.token, csrf);
}

/** Why a post is not taken: the status to answer with and the message to show. */
export interface PostRefused {
  status: 400 | 403 | 413 | 415;
  message: 'error.generic' | 'error.session';
}

/**
 * A post to a hosted page as the hydrated screen (JSON, the CSRF token in a header) or the
 * form without JavaScript (`fromForm` reads it) sends it, or why it is refused: an
 * unreadable or malformed body, or a post not from this page.
 */
export async function readHostedPost<S extends z.ZodType>(
  ctx: CheckoutContext,
  req: Request,
  page: HostedPage<Found>,
  schema: S,
  fromForm: (body: Record<string, unknown>) => unknown = (body) => body,
): Promise<{ input: z.infer<S> } | { refused: PostRefused }> {
  const unreadable = formBodyFailure(req);
  if (unreadable) return { refused: { status: unreadable, message: 'error.generic' } };
  const raw = page.wantsJson ? { ...req.body, csrf: req.get('x-csrf-token') } : fromForm(req.body ?? {});
  const parsed = schema.safeParse(raw);
  if (!parsed.success) return { refused: { status: 400, message: 'error.generic' } };
  const csrf = (parsed.data as { csrf?: string }).csrf;
  if (!(await trustedPost(ctx, req, page, csrf))) return { refused: { status: 403, message: 'error.session' } };
  return { input: parsed.data };
}

/** A refused post, shown on the page with its status. */
export const refusedView = (refused: PostRefused): HostedOutcome => ({ kind: 'view', status: refused.status, error: { message: refused.message, fields: {} } });

/**
 * An open page that no gateway of the environment's mode can serve (a live environment
 * with none for its currency, the link made before that): "This shop cannot take payments
 * right now" and the way back, instead of a form that could do nothing; in the widget's
 * frame, `checkout:error` with `no_payment_method` to the merchant's page.
 */
export function respondUnpayable(ctx: CheckoutContext, res: Response, page: HostedPage<Found>): void {
  const { language } = page;
  if (page.embed) {
    return sendEmbedRefusal(res, { origin: page.embed.parentOrigin, code: 'no_payment_method', language, assets: ctx.screenAssets(), status: 200 });
  }
  const nonce = secureHosted(res, page);
  const href = backUrlOf(urlsOf(page.row));
  const back = href ? { href, merchant: page.merchant.name } : undefined;
  res.status(200).type('html').send(renderMessage({ language, nonce, assets: ctx.screenAssets(), back }, 'unpayable'));
}
