import type { Language } from '../../widget/i18n/language';
import { hashToken } from '../domain/account-tokens';
import { queuePasswordReset } from '../notify/mail-account';
import { recordAudit } from '../store/audit';
import { type Db, inTransaction } from '../store/db';
import { endResetsOf, findOpenReset, resetPassword } from '../store/password-resets';
import { clearFailures } from '../store/sign-in-failures';
import { deleteOtherSessionsOf, findUser, findUserByEmail, membershipsOf, normaliseEmail, setPasswordHash } from '../store/users';
import { claimAttempt, goodStep, throttled, throttleKeys } from './accounts';
import { hashPassword, type PasswordProblem, passwordProblem, verifyPassword } from './passwords';

// A password changed after it was set: by a link sent to the account's email ("Forgot your
// password?"), or by its owner, signed in, who knows the current one. Either way every
// other session of the account ends, and the second factor stays as it was: the next
// sign-in asks for its code.

/**
 * Asks for a reset link for `email`. The answer is the same whether or not an account has
 * that email (`sent`): the link goes only to an account that can sign in (a password and an
 * environment), by email. Throttled per email and per address like sign-in, on counters
 * of its own, so that nobody can fill an inbox or lock a sign-in with it.
 */
export async function requestReset(
  db: Db,
  input: { email: string; ip: string; language: Language; baseUrl: string; now: Date },
): Promise<{ kind: 'sent' } | { kind: 'throttled'; retryAfterS: number }> {
  const email = normaliseEmail(input.email);
  const retryAt = await claimAttempt(db, throttleKeys(email, input.ip, 'reset:'), input.now);
  if (retryAt) return throttled(retryAt, input.now);
  const user = await findUserByEmail(db, email);
  const [first] = user?.password_hash ? await membershipsOf(db, user.id) : [];
  const known = user && first ? { user, environmentId: first.environment_id } : null;
  // One write either way (the request's audit entry, with the email queued beside it), so
  // an unknown email does not answer faster.
  await inTransaction(db, async (trx) => {
    if (known) await queuePasswordReset(trx, { userId: known.user.id, email, environmentId: known.environmentId, language: input.language, baseUrl: input.baseUrl, now: input.now });
    await recordAudit(trx, { environmentId: null, userId: known?.user.id ?? null, email, action: 'password_reset_requested', ip: input.ip }, input.now);
  });
  return { kind: 'sent' };
}

/** The account a reset link is for, while it can be used. */
export const findReset = (db: Db, token: string, now: Date) => findOpenReset(db, hashToken(token), now);

export type ResetResult = { kind: 'done'; email: string } | { kind: 'invalid' } | { kind: 'password'; problem: PasswordProblem };

/**
 * Sets a new password with a reset link: once, every session of the account ended (a
 * thief's too), the account's sign-in failures forgotten (its owner proved the email). No
 * session is started: signing in afterwards asks for the second factor as ever.
 */
export async function completeReset(db: Db, input: { token: string; password: string; ip: string; now: Date; passwordCost: number }): Promise<ResetResult> {
  const problem = passwordProblem(input.password);
  if (problem) return { kind: 'password', problem };
  const reset = await findReset(db, input.token, input.now);
  if (!reset) return { kind: 'invalid' };
  const userId = await resetPassword(db, hashToken(input.token), await hashPassword(input.password, input.passwordCost), input.now);
  if (!userId) return { kind: 'invalid' };
  await clearFailures(db, throttleKeys(reset.email, input.ip).account);
  await recordAudit(db, { environmentId: null, userId, email: reset.email, action: 'password_reset', ip: input.ip }, input.now);
  return { kind: 'done', email: reset.email };
}

export type ChangeResult = { kind: 'changed' } | { kind: 'wrong' } | { kind: 'password'; problem: PasswordProblem } | { kind: 'throttled'; retryAfterS: number };

/**
 * The signed-in user changes their password, proven by the current one under the sign-in
 * limits (a stolen session alone cannot). Every other session ends; the one asking stays.
 */
export async function changePassword(
  db: Db,
  s: { userId: string; email: string; idHash: string },
  input: { current: string; password: string; ip: string; now: Date; passwordCost: number },
): Promise<ChangeResult> {
  const problem = passwordProblem(input.password);
  if (problem) return { kind: 'password', problem };
  const keys = throttleKeys(s.email, input.ip);
  const retryAt = await claimAttempt(db, keys, input.now);
  if (retryAt) return throttled(retryAt, input.now);
  const user = await findUser(db, s.userId);
  if (!(await verifyPassword(input.current, user?.password_hash ?? null, input.passwordCost))) {
    await recordAudit(db, { environmentId: null, userId: s.userId, email: s.email, action: 'password_change_failed', ip: input.ip }, input.now);
    return { kind: 'wrong' };
  }
  await goodStep(db, keys);
  await setPasswordHash(db, s.userId, await hashPassword(input.password, input.passwordCost));
  await deleteOtherSessionsOf(db, s.userId, s.idHash);
  await endResetsOf(db, s.userId, input.now);
  await recordAudit(db, { environmentId: null, userId: s.userId, email: s.email, action: 'password_changed', ip: input.ip }, input.now);
  return { kind: 'changed' };
}
