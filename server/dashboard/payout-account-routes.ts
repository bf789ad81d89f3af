import type { IRouter, Request, Response } from 'express';
import { hashToken } from '../domain/account-tokens';
import { baseUrlOf } from '../http/route';
import { changePayoutSettings } from '../payments/payout-account';
import { settingsIn } from '../schemas/payout-settings';
import { heldUntil, payoutSettingsOf } from '../store/merchant-payouts';
import { confirmPayoutAccount, findPayoutAccountLink } from '../store/payout-account-links';
import { messagePage } from './account-pages';
import { type ActiveSession, reauthenticate } from './accounts';
import { clientIp } from './http';
import type { Kit } from './kit';
import type { ActionNotice } from './list-parts';
import { ACCOUNT_FIELDS, ACCOUNT_LABELS, payoutAccountConfirmPage, type RefusedAccountForm } from './payout-account-form';

// The Balance page's bank account and schedule (docs/dashboard.md "Balance"): an owner's
// change, parsed by the API's own schema (schemas/payout-settings.ts) and proven by the owner's
// password and second factor under the sign-in limits, then the use case
// PATCH /v1/payout_settings/ calls (payments/payout-account.ts: audited, mailed to every
// owner, a new account held). And the confirm link of those emails: a GET showing one
// button, a POST that ends the hold, for a signed-in owner of the link's environment only.

/** The Balance page, showing what the last action came to (and the bank account form's refused post). */
export type ShowBalance = (req: Request, res: Response, s: ActiveSession, status: number, notice: ActionNotice, refused?: RefusedAccountForm) => Promise<void>;

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** The form's fields as the API takes them: a blank field is one left out (kept). */
function apiInput(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(ACCOUNT_FIELDS.filter((f) => typeof body[f] === 'string' && body[f].trim() !== '').map((f) => [f, body[f]]));
}

const field = (body: Record<string, unknown>, name: string) => (typeof body[name] === 'string' ? body[name].slice(0, 1024) : '');

/** A refused post's fields as typed, to show again: nothing typed is lost. */
const refusedWith = (body: Record<string, unknown>, invalid: RefusedAccountForm['invalid']): RefusedAccountForm => ({
  values: { iban: field(body, 'iban'), account_holder_name: field(body, 'account_holder_name'), schedule: field(body, 'schedule') },
  invalid,
});

export function payoutAccountRoutes(router: IRouter, kit: Kit, show: ShowBalance): void {
  const { db, deps, page, action, forms, send, textOf, audit } = kit;

  router.post('/balance/bank-account/', forms, action('owner', async (req, res, s) => {
    const text = textOf(req);
    const body = req.body as Record<string, unknown>;
    const parsed = settingsIn.safeParse(apiInput(body));
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => ({ name: ACCOUNT_FIELDS.find((f) => f === i.path[0]), message: i.message }));
      // The schema's own messages, each under the label of the field it names.
      const problems = issues.map((i) => `${text.t(i.name ? ACCOUNT_LABELS[i.name] : 'bal.account.title')}: ${i.message}`).join('; ');
      return show(req, res, s, 400, { text: problems, error: true }, refusedWith(body, issues.flatMap((i) => (i.name ? [i.name] : []))));
    }
    const now = deps.now();
    const proof = { password: field(body, 'password'), code: field(body, 'code'), ip: clientIp(req), now, passwordCost: deps.config.passwordHashCost };
    const user = { id: s.userId, email: s.email };
    const result = await reauthenticate(db, user, { ...proof, failedAction: 'payout_settings_change_failed', environmentId: s.current.environment_id });
    if (result === 'refused') return show(req, res, s, 400, { text: text.t('security.wrongProof'), error: true }, refusedWith(body, ['proof']));
    if (result !== 'ok') {
      res.set('Retry-After', String(result.retryAfterS));
      return show(req, res, s, 429, { text: text.t('security.throttled', { minutes: Math.ceil(result.retryAfterS / 60) }), error: true }, refusedWith(body, []));
    }
    const by = { userId: s.userId, who: s.email, ip: clientIp(req), baseUrl: baseUrlOf(req, deps), language: text.language };
    const outcome = await changePayoutSettings(db, deps, s.current.environment_id, parsed.data, by);
    if (!outcome.ok) {
      const needsIban = text.t('bal.account.needsIban', { schedule: text.t(`payout.schedule.${outcome.schedule}`) });
      return show(req, res, s, 400, { text: needsIban, error: true }, refusedWith(body, ['iban']));
    }
    res.redirect(303, '/dashboard/balance/?account=changed');
  }));

  const invalid = (req: Request, res: Response) => {
    const text = textOf(req);
    send(res, 404, messagePage(text, text.t('bal.confirm.title'), text.t('bal.confirm.invalid'), { href: '/dashboard/balance/', label: text.t('bal.back') }));
  };

  router.get('/balance/bank-account/confirm/:token/', page('owner', async (req, res, s) => {
    const token = String(req.params.token);
    const env = s.current.environment_id;
    const link = TOKEN.test(token) ? await findPayoutAccountLink(db, hashToken(token), env, deps.now()) : undefined;
    const settings = await payoutSettingsOf(db, env);
    const until = heldUntil(settings, deps.now());
    if (!link || !until || !settings.iban) return invalid(req, res);
    send(res, 200, payoutAccountConfirmPage({ text: textOf(req), session: s, token, last4: settings.iban.slice(-4), until }));
  }));

  router.post('/balance/bank-account/confirm/:token/', forms, action('owner', async (req, res, s) => {
    const token = String(req.params.token);
    const env = s.current.environment_id;
    if (!TOKEN.test(token) || !(await confirmPayoutAccount(db, hashToken(token), env, deps.now()))) return invalid(req, res);
    await audit(req, s, 'payout_account_confirmed');
    res.redirect(303, '/dashboard/balance/?account=confirmed');
  }));
}
