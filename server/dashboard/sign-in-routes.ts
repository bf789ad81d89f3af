import type { IRouter } from 'express';
import { z } from 'zod';
import { SINGLE_LINE } from '../../widget/fields/text';
import { CHALLENGE_TTL_MS, signIn, signInWithCode } from './accounts';
import { codePage, type Notice, signInPage } from './account-pages';
import { CHALLENGE_COOKIE, clearCookie, clientIp, cookie, FORM_COOKIE, formToken, setCookie, startSessionCookie, validPost } from './http';
import type { Kit } from './kit';

// /dashboard/sign-in/: the password, then (when the user has one) the second factor's
// code, under the anonymous forms' double-submit token and the sign-in throttle.

// The email reaches the database (the throttle's key, the audit log): the text rule keeps
// a NUL or a lone surrogate from failing there (PostgreSQL refuses them) as a 500.
const signInForm = z.object({ email: z.string().max(320).regex(SINGLE_LINE), password: z.string().max(1024) });
const codeForm = z.object({ code: z.string().max(64) });

export function signInRoutes(router: IRouter, kit: Kit): void {
  const { db, deps, forms, textOf, send, forbidden } = kit;

  router.get('/sign-in/', (req, res) => {
    if (req.dashboard!.session) return res.redirect(303, '/dashboard/');
    const { t } = textOf(req);
    const notice: Notice | undefined = req.query.signed_out === '1' ? { kind: 'info', text: t('signIn.signedOut') } : undefined;
    send(res, 200, signInPage(textOf(req), { csrf: formToken(req, res, deps), notice }));
  });

  router.post('/sign-in/', forms, async (req, res) => {
    const csrf = cookie(req, FORM_COOKIE);
    if (!validPost(req, deps, csrf)) return forbidden(req, res);
    const { t } = textOf(req);
    const form = signInForm.safeParse(req.body);
    const email = form.success ? form.data.email : '';
    const result = form.success ? await signIn(db, { ...form.data, ip: clientIp(req), now: deps.now() }) : ({ kind: 'refused' } as const);
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
}
