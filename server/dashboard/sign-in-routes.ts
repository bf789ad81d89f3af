import type { IRouter, Request, Response } from 'express';
import { z } from 'zod';
import { SINGLE_LINE } from '../../widget/fields/text';
import { baseUrlOf } from '../http/route';
import { CHALLENGE_TTL_MS, signIn, signInWithCode } from './accounts';
import { codePage, forgotPage, messagePage, type Notice, resetPage, signInPage } from './account-pages';
import { CHALLENGE_COOKIE, clearCookie, clientIp, cookie, FORM_COOKIE, formToken, setCookie, startSessionCookie, validPost } from './http';
import type { Kit } from './kit';
import { completeReset, findReset, requestReset } from './password-changes';

// /dashboard/sign-in/: the password, then (when the user has one) the second factor's
// code, under the anonymous forms' double-submit token and the sign-in throttle; and
// "Forgot your password?", whose link comes by email.

// The email reaches the database (the throttle's key, the audit log): the text rule keeps
// a NUL or a lone surrogate from failing there (PostgreSQL refuses them) as a 500.
const signInForm = z.object({ email: z.string().max(320).regex(SINGLE_LINE), password: z.string().max(1024) });
const codeForm = z.object({ code: z.string().max(64) });
const forgotForm = z.object({ email: z.email().max(320) });
/** A reset link's token, in its query and then in its form (a query is never logged, unlike a path). */
const TOKEN = z.string().regex(/^[A-Za-z0-9_-]{43}$/);
const resetForm = z.object({ token: TOKEN, password: z.string().max(1024) });

export function signInRoutes(router: IRouter, kit: Kit): void {
  const { db, deps, forms, textOf, send, forbidden } = kit;

  router.get('/sign-in/', (req, res) => {
    if (req.dashboard!.session) return res.redirect(303, '/dashboard/');
    const { t } = textOf(req);
    const notice: Notice | undefined =
      req.query.signed_out === '1' ? { kind: 'info', text: t('signIn.signedOut') } : req.query.reset === '1' ? { kind: 'info', text: t('reset.done') } : undefined;
    send(res, 200, signInPage(textOf(req), { csrf: formToken(req, res, deps), notice }));
  });

  router.post('/sign-in/', forms, async (req, res) => {
    const csrf = cookie(req, FORM_COOKIE);
    if (!validPost(req, deps, csrf)) return forbidden(req, res);
    const { t } = textOf(req);
    const form = signInForm.safeParse(req.body);
    const email = form.success ? form.data.email : '';
    const result = form.success ? await signIn(db, { ...form.data, ip: clientIp(req), now: deps.now(), passwordCost: deps.config.passwordHashCost }) : ({ kind: 'refused' } as const);
    if (result.kind === 'signed_in') {
      startSessionCookie(req, res, deps, result.session.id);
      return res.redirect(303, '/dashboard/');
    }
    if (result.kind === 'second_factor') {
      setCookie(req, res, deps, CHALLENGE_COOKIE, result.challenge, CHALLENGE_TTL_MS / 1000, 'Strict');
      return res.redirect(303, '/dashboard/sign-in/code/');
    }
    if (result.kind === 'throttled') {
      res.set('Retry-After', String(result.retryAfterS));
      const notice: Notice = { kind: 'error', text: t('signIn.throttled', { minutes: Math.ceil(result.retryAfterS / 60) }) };
      return send(res, 429, signInPage(textOf(req), { csrf: csrf!, email, notice }));
    }
    send(res, 401, signInPage(textOf(req), { csrf: csrf!, email, notice: { kind: 'error', text: t('signIn.refused') } }));
  });

  router.get('/sign-in/code/', (req, res) => {
    if (req.dashboard!.session) return res.redirect(303, '/dashboard/');
    if (!cookie(req, CHALLENGE_COOKIE)) return res.redirect(303, '/dashboard/sign-in/');
    send(res, 200, codePage(textOf(req), { csrf: formToken(req, res, deps) }));
  });

  router.post('/sign-in/code/', forms, async (req, res) => {
    const csrf = cookie(req, FORM_COOKIE);
    if (!validPost(req, deps, csrf)) return forbidden(req, res);
    const { t } = textOf(req);
    const challenge = cookie(req, CHALLENGE_COOKIE);
    const form = codeForm.safeParse(req.body);
    const result = challenge ? await signInWithCode(db, { challenge, code: form.success ? form.data.code : '', ip: clientIp(req), now: deps.now() }) : ({ kind: 'expired' } as const);
    if (result.kind === 'signed_in') {
      clearCookie(req, res, deps, CHALLENGE_COOKIE);
      startSessionCookie(req, res, deps, result.session.id);
      return res.redirect(303, '/dashboard/');
    }
    if (result.kind === 'throttled') {
      res.set('Retry-After', String(result.retryAfterS));
      return send(res, 429, codePage(textOf(req), { csrf: csrf!, notice: { kind: 'error', text: t('signIn.throttled', { minutes: Math.ceil(result.retryAfterS / 60) }) } }));
    }
    if (result.kind === 'refused') return send(res, 401, codePage(textOf(req), { csrf: csrf!, notice: { kind: 'error', text: t('signIn.codeRefused') } }));
    clearCookie(req, res, deps, CHALLENGE_COOKIE);
    send(res, 401, signInPage(textOf(req), { csrf: csrf!, notice: { kind: 'error', text: t('signIn.codeExpired') } }));
  });

  resetRoutes(router, kit);
}

/** /dashboard/sign-in/forgot/ asks for a link by email; /dashboard/sign-in/reset/?token=… sets the new password. */
function resetRoutes(router: IRouter, kit: Kit): void {
  const { db, deps, forms, textOf, send, forbidden } = kit;

  const invalidLink = (req: Request, res: Response) => {
    const { t } = textOf(req);
    send(res, 404, messagePage(textOf(req), t('reset.invalid.title'), t('reset.invalid.body'), { href: '/dashboard/sign-in/forgot/', label: t('reset.again') }));
  };

  router.get('/sign-in/forgot/', (req, res) => {
    send(res, 200, forgotPage(textOf(req), { csrf: formToken(req, res, deps) }));
  });

  router.post('/sign-in/forgot/', forms, async (req, res) => {
    const csrf = cookie(req, FORM_COOKIE);
    if (!validPost(req, deps, csrf)) return forbidden(req, res);
    const text = textOf(req);
    const form = forgotForm.safeParse(req.body);
    if (!form.success) return send(res, 400, forgotPage(text, { csrf: csrf!, notice: { kind: 'error', text: text.t('reset.badEmail') } }));
    const { email } = form.data;
    const result = await requestReset(db, { email, ip: clientIp(req), language: text.language, baseUrl: baseUrlOf(req, deps), now: deps.now() });
    if (result.kind === 'throttled') {
      res.set('Retry-After', String(result.retryAfterS));
      const notice: Notice = { kind: 'error', text: text.t('signIn.throttled', { minutes: Math.ceil(result.retryAfterS / 60) }) };
      return send(res, 429, forgotPage(text, { csrf: csrf!, email, notice }));
    }
    send(res, 200, forgotPage(text, { csrf: csrf!, email, sent: true }));
  });

  router.get('/sign-in/reset/', async (req, res) => {
    const token = TOKEN.safeParse(req.query.token);
    const reset = token.success ? await findReset(db, token.data, deps.now()) : undefined;
    if (!token.success || !reset) return invalidLink(req, res);
    send(res, 200, resetPage(textOf(req), { csrf: formToken(req, res, deps), token: token.data, email: reset.email }));
  });

  router.post('/sign-in/reset/', forms, async (req, res) => {
    const csrf = cookie(req, FORM_COOKIE);
    if (!validPost(req, deps, csrf)) return forbidden(req, res);
    const form = resetForm.safeParse(req.body);
    if (!form.success) return invalidLink(req, res);
    const now = deps.now();
    const result = await completeReset(db, { ...form.data, ip: clientIp(req), now, passwordCost: deps.config.passwordHashCost });
    if (result.kind === 'invalid') return invalidLink(req, res);
    if (result.kind === 'done') return res.redirect(303, '/dashboard/sign-in/?reset=1');
    const reset = await findReset(db, form.data.token, now);
    if (!reset) return invalidLink(req, res);
    const { t } = textOf(req);
    send(res, 400, resetPage(textOf(req), { csrf: csrf!, token: form.data.token, email: reset.email, notice: { kind: 'error', text: t(`password.${result.problem}`) } }));
  });
}
