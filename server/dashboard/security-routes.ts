import type { IRouter } from 'express';
import { z } from 'zod';
import { recordAudit } from '../store/audit';
import { deleteOtherSessionsOf } from '../store/users';
import { turnOffWithProof } from './accounts';
import { clientIp } from './http';
import type { Kit } from './kit';
import { changePassword } from './password-changes';
import { beginEnrolment, confirmEnrolment, secondFactorOf } from './second-factor';
import { recoveryCodesPage, securityPage } from './security-pages';

// Every signed-in user's own password and second factor: change the password with the
// current one; set up the factor, confirm it with a first code (the recovery codes are
// shown then, once), turn it off with password and code. They are the user's, not the
// environment's: any role may, and only for themselves. Each change ends the user's other
// sessions: one opened before it (a stolen password's, say) does not outlive it.

const codeForm = z.object({ code: z.string().max(64) });
const disableForm = z.object({ password: z.string().max(1024), code: z.string().max(64) });
const passwordForm = z.object({ current: z.string().max(1024), password: z.string().max(1024) });

export function securityRoutes(router: IRouter, kit: Kit): void {
  const { db, deps, forms, page, action, send, textOf } = kit;
  const userOf = (s: { userId: string; email: string }) => ({ id: s.userId, email: s.email });

  router.get('/account/security/', page('viewer', async (req, res, s) => {
    const text = textOf(req);
    const info = req.query.password === 'changed' ? text.t('security.passwordChanged') : undefined;
    send(res, 200, securityPage({ text, session: s, state: await secondFactorOf(db, userOf(s)), info }));
  }));

  router.post('/account/security/password/', forms, action('viewer', async (req, res, s) => {
    const form = passwordForm.safeParse(req.body);
    const text = textOf(req);
    const input = form.success ? form.data : { current: '', password: '' };
    const result = await changePassword(db, s, { ...input, ip: clientIp(req), now: deps.now(), passwordCost: deps.config.passwordHashCost });
    if (result.kind === 'changed') return res.redirect(303, '/dashboard/account/security/?password=changed');
    const state = await secondFactorOf(db, userOf(s));
    if (result.kind === 'throttled') res.set('Retry-After', String(result.retryAfterS));
    const error =
      result.kind === 'throttled' ? text.t('security.throttled', { minutes: Math.ceil(result.retryAfterS / 60) }) : result.kind === 'wrong' ? text.t('security.wrongPassword') : text.t(`password.${result.problem}`);
    send(res, result.kind === 'throttled' ? 429 : 400, securityPage({ text, session: s, state, error }));
  }));

  router.post('/account/security/totp/', forms, action('viewer', async (_req, res, s) => {
    // Already on: nothing to start; the page says so.
    await beginEnrolment(db, s.userId, deps.now());
    res.redirect(303, '/dashboard/account/security/');
  }));

  router.post('/account/security/totp/confirm/', forms, action('viewer', async (req, res, s) => {
    const form = codeForm.safeParse(req.body);
    const now = deps.now();
    const codes = form.success ? await confirmEnrolment(db, userOf(s), form.data.code, now) : null;
    const text = textOf(req);
    if (!codes) return send(res, 400, securityPage({ text, session: s, state: await secondFactorOf(db, userOf(s)), error: text.t('security.wrongCode') }));
    await deleteOtherSessionsOf(db, s.userId, s.idHash);
    await recordAudit(db, { environmentId: null, userId: s.userId, email: s.email, action: 'totp_enabled', ip: clientIp(req) }, now);
    send(res, 200, recoveryCodesPage({ text, session: s, codes }));
  }));

  router.post('/account/security/totp/disable/', forms, action('viewer', async (req, res, s) => {
    const form = disableForm.safeParse(req.body);
    const text = textOf(req);
    const result = await turnOffWithProof(db, userOf(s), { password: form.success ? form.data.password : '', code: form.success ? form.data.code : '', ip: clientIp(req), now: deps.now(), passwordCost: deps.config.passwordHashCost });
    const state = await secondFactorOf(db, userOf(s));
    if (result === 'off') {
      await deleteOtherSessionsOf(db, s.userId, s.idHash);
      return res.redirect(303, '/dashboard/account/security/');
    }
    if (result === 'refused') return send(res, 400, securityPage({ text, session: s, state, error: text.t('security.wrongProof') }));
    res.set('Retry-After', String(result.retryAfterS));
    send(res, 429, securityPage({ text, session: s, state, error: text.t('security.throttled', { minutes: Math.ceil(result.retryAfterS / 60) }) }));
  }));
}
