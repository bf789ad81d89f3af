import { hashToken, newSecret } from '../domain/account-tokens';
import type { Language } from '../../widget/i18n/language';
import { queueInviteMail } from '../notify/mail-account';
import { type Db, inTransaction } from '../store/db';
import { recordAudit } from '../store/audit';
import { type PlatformInUse, platformInUse } from '../store/platform-use';
import type { Role } from '../store/schema';
import { clearFailures, countAttempt, takeBackFailure } from '../store/sign-in-failures';
import {
  acceptInvite,
  createInvite,
  createSession,
  deleteSession,
  deleteSessionsOf,
  ensureUser,
  findOpenInvite,
  findSession,
  findUserByEmail,
  type Membership,
  membershipsOf,
  normaliseEmail,
  type OpenInvite,
  updateSession,
} from '../store/users';
import { createChallenge, endChallenge, findChallenge } from '../store/totp';
import { hashPassword, type PasswordProblem, passwordProblem, verifyPassword } from './passwords';
import { checkSecondFactor, hasSecondFactor, turnOffSecondFactor } from './second-factor';

// The dashboard's accounts as use cases, apart from HTTP: invites, sign-in with its
// throttle, sessions with idle and absolute expiry. Secrets (invite tokens, session ids)
// are 256 random bits; only their SHA-256 is stored.

const INVITE_TTL_MS = 24 * 3600_000;
/** A session unused for this long is over. */
export const SESSION_IDLE_MS = 2 * 3600_000;
/** A session is over this long after sign-in, however busy. */
export const SESSION_ABSOLUTE_MS = 12 * 3600_000;
/** last_seen_at is written at most this often, not on every page. */
const TOUCH_EVERY_MS = 60_000;

/** Failed sign-ins allowed per window, per account and per client IP. */
export const SIGN_IN_WINDOW_MS = 15 * 60_000;
export const SIGN_IN_LIMIT_ACCOUNT = 5;
export const SIGN_IN_LIMIT_IP = 20;

// The sale pages' idempotency keys are made the same way.
export { newSecret };

export interface InviteInput {
  email: string;
  environmentId: string;
  role: Role;
  invitedBy: string | null;
  now: Date;
}

/** Creates (or reuses) the user for `email` and a one-time invite; returns the token for the URL. */
async function newInvite(db: Db, input: InviteInput, provesEmail: boolean): Promise<{ token: string; expiresAt: Date; userId: string }> {
  const user = await ensureUser(db, input.email, input.now);
  const token = newSecret();
  const expiresAt = new Date(input.now.getTime() + INVITE_TTL_MS);
  await createInvite(
    db,
    {
      token_hash: hashToken(token),
      user_id: user.id,
      environment_id: input.environmentId,
      role: input.role,
      expires_at: expiresAt.toISOString(),
      created_by: input.invitedBy,
      proves_email: provesEmail ? 1 : 0,
    },
    input.now,
  );
  return { token, expiresAt, userId: user.id };
}

/**
 * The operator's invite (the users CLI, the first start): the operator hands its link to
 * the person, so it may set the account's first password, as a link sent to its email may.
 */
export const inviteUser = (db: Db, input: InviteInput) => newInvite(db, input, true);

/**
 * An owner's invite, whose link the owner sees on screen: it only adds the environment to
 * an account that has a password already (its email proved). Whoever sees it must not be
 * able to choose the password of an account another environment invited. The invite also
 * goes to the address by email, with a link of its own that may set a first password.
 */
export function inviteMember(
  db: Db,
  input: InviteInput & { invitedBy: string; inviterEmail: string; environmentName: string; language: Language; baseUrl: string },
): Promise<{ token: string; expiresAt: Date }> {
  return inTransaction(db, async (trx) => {
    const invite = await newInvite(trx, input, false);
    await queueInviteMail(trx, {
      language: input.language,
      baseUrl: input.baseUrl,
      email: normaliseEmail(input.email),
      userId: invite.userId,
      environmentId: input.environmentId,
      environment: input.environmentName,
      role: input.role,
      inviter: input.inviterEmail,
      invitedBy: input.invitedBy,
      now: input.now,
    });
    return { token: invite.token, expiresAt: invite.expiresAt };
  });
}

/** Whether using this invite sets the account's first password (else it asks for the current one). */
export const setsFirstPassword = (invite: OpenInvite) => invite.proves_email === 1 && !invite.has_password;

export const inviteUrl = (baseUrl: string, token: string) => `${baseUrl}/dashboard/invite/${token}/`;

export const findInvite = (db: Db, token: string, now: Date) => findOpenInvite(db, hashToken(token), now);

export type AcceptResult =
  | { kind: 'accepted'; userId: string; environmentId: string }
  /** Joined; the account's second factor is asked before any session, under `challenge`. */
  | { kind: 'second_factor'; challenge: string }
  | { kind: 'invalid' }
  | { kind: 'password'; problem: PasswordProblem | 'wrong' }
  | { kind: 'throttled'; retryAfterS: number };

/**
 * Uses an invite: a new user sets a password (the policy of passwords.ts) through a link
 * that proves their email; a user who has one already confirms it, and gains the invite's
 * environment. That confirmation is a
 * sign-in: the same limits and audit, and an account with a second factor is asked for
 * its code before a session (an invite from any environment is no way around either).
 */
export async function useInvite(db: Db, input: { token: string; password: string; ip: string; now: Date; passwordCost: number }): Promise<AcceptResult> {
  const { token, password, now } = input;
  const invite = await findInvite(db, token, now);
  if (!invite) return { kind: 'invalid' };
  let hash: string | null = null;
  let existing: { id: string; email: string } | null = null;
  // An on-screen link to an account without a password is answered as a wrong password:
  // its holder may not set one, and must not learn that the account has none.
  if (!setsFirstPassword(invite)) {
    const keys = throttleKeys(invite.email, input.ip);
    const retryAt = await claimAttempt(db, keys, now);
    if (retryAt) return throttled(retryAt, now);
    const user = await findUserByEmail(db, invite.email);
    if (!user || !(await verifyPassword(password, user.password_hash, input.passwordCost))) {
      await recordAudit(db, { environmentId: invite.environment_id, userId: user?.id ?? null, email: invite.email, action: 'sign_in_failed', detail: { step: 'invite' }, ip: input.ip }, now);
      return { kind: 'password', problem: 'wrong' };
    }
    existing = { id: user.id, email: user.email };
  } else {
    const problem = passwordProblem(password);
    if (problem) return { kind: 'password', problem };
    hash = await hashPassword(password, input.passwordCost);
  }
  if (!(await acceptInvite(db, invite.token_hash, hash, now))) return { kind: 'invalid' };
  if (existing) await goodStep(db, throttleKeys(existing.email, input.ip));
  if (existing && (await hasSecondFactor(db, existing.id))) {
    const challenge = newSecret();
    await createChallenge(db, { id_hash: hashToken(challenge), user_id: existing.id, expires_at: new Date(now.getTime() + CHALLENGE_TTL_MS).toISOString() }, now);
    return { kind: 'second_factor', challenge };
  }
  return { kind: 'accepted', userId: invite.user_id, environmentId: invite.environment_id };
}

export interface NewSession {
  /** The cookie's value: never stored. */
  id: string;
  csrf: string;
}

/** A session for the user, looking at `environmentId` (one of theirs). */
export async function startSession(db: Db, userId: string, environmentId: string, now: Date): Promise<NewSession> {
  const id = newSecret();
  const csrf = newSecret();
  await createSession(db, {
    id_hash: hashToken(id),
    user_id: userId,
    csrf_token: csrf,
    environment_id: environmentId,
    created_at: now.toISOString(),
    last_seen_at: now.toISOString(),
    expires_at: new Date(now.getTime() + SESSION_ABSOLUTE_MS).toISOString(),
  });
  return { id, csrf };
}

export type SignInResult =
  | { kind: 'signed_in'; session: NewSession; userId: string; environmentId: string }
  /** The password was right and the account has a second factor: the code is asked next, under `challenge`. */
  | { kind: 'second_factor'; challenge: string }
  | { kind: 'refused' }
  | { kind: 'throttled'; retryAfterS: number };

/** A sign-in waiting for its code lasts this long. */
export const CHALLENGE_TTL_MS = 5 * 60_000;

/**
 * The failure counters of a sign-in: the account's and the client address's. Another kind
 * of attempt (`reset:` links asked for) counts apart, under the same limits.
 */
export const throttleKeys = (email: string, ip: string, kind = '') => ({ account: `${kind}email:${email}`, ip: `${kind}ip:${ip}` });

/**
 * Counts an attempt (a password, a code) before it is judged, and says when it may be tried
 * again (0: now): past either limit, every attempt is refused whatever it carries. Counted
 * first: reading the count, spending scrypt's 100 ms, then writing it let 60 guesses at
 * once all be checked.
 */
export async function claimAttempt(db: Db, keys: { account: string; ip: string }, now: Date): Promise<number> {
  const counts = await countAttempt(db, [keys.account, keys.ip], now, SIGN_IN_WINDOW_MS);
  let retryAt = 0;
  for (const [key, limit] of [[keys.account, SIGN_IN_LIMIT_ACCOUNT], [keys.ip, SIGN_IN_LIMIT_IP]] as const) {
    const count = counts.get(key)!;
    if (count.failures > limit) retryAt = Math.max(retryAt, count.windowStart.getTime() + SIGN_IN_WINDOW_MS);
  }
  return retryAt;
}

export const throttled = (retryAt: number, now: Date) => ({ kind: 'throttled', retryAfterS: Math.ceil((retryAt - now.getTime()) / 1000) }) as const;

/** A good step short of a session (the password before its code): its attempt is taken back. */
export async function goodStep(db: Db, keys: { account: string; ip: string }): Promise<void> {
  await takeBackFailure(db, keys.account);
  await takeBackFailure(db, keys.ip);
}

/** The session of a sign-in that passed every check: failures forgotten, audited. */
async function signedIn(db: Db, user: { id: string; email: string }, environmentId: string, ip: string, now: Date, action = 'signed_in'): Promise<SignInResult> {
  const keys = throttleKeys(user.email, ip);
  await clearFailures(db, keys.account);
  await takeBackFailure(db, keys.ip);
  const session = await startSession(db, user.id, environmentId, now);
  await recordAudit(db, { environmentId: null, userId: user.id, email: user.email, action, ip }, now);
  return { kind: 'signed_in', session, userId: user.id, environmentId };
}

/**
 * Checks an email and password. An unknown email, a wrong password and an account without
 * environments are one answer, `refused`, after the same scrypt work; past the limits,
 * `throttled` whatever the password. With a second factor on, a right password only opens
 * the code step (signInWithCode), under the same limits.
 */
export async function signIn(db: Db, input: { email: string; password: string; ip: string; now: Date; passwordCost: number }): Promise<SignInResult> {
  const email = normaliseEmail(input.email);
  const keys = throttleKeys(email, input.ip);
  const now = input.now.getTime();
  const retryAt = await claimAttempt(db, keys, input.now);
  if (retryAt) return throttled(retryAt, input.now);

  const user = await findUserByEmail(db, email);
  const ok = await verifyPassword(input.password, user?.password_hash ?? null, input.passwordCost);
  const memberships = ok && user ? await membershipsOf(db, user.id) : [];
  const first = memberships[0];
  if (!user || !first) {
    await recordAudit(db, { environmentId: null, userId: user?.id ?? null, email, action: 'sign_in_failed', ip: input.ip }, input.now);
    return { kind: 'refused' };
  }
  if (await hasSecondFactor(db, user.id)) {
    await goodStep(db, keys);
    const challenge = newSecret();
    await createChallenge(db, { id_hash: hashToken(challenge), user_id: user.id, expires_at: new Date(now + CHALLENGE_TTL_MS).toISOString() }, input.now);
    return { kind: 'second_factor', challenge };
  }
  return signedIn(db, user, first.environment_id, input.ip, input.now);
}

export type CodeResult = SignInResult | { kind: 'expired' };

/** The code step of a sign-in: a code from the authenticator or a recovery code, with the password step's limits and audit. */
export async function signInWithCode(db: Db, input: { challenge: string; code: string; ip: string; now: Date }): Promise<CodeResult> {
  const idHash = hashToken(input.challenge);
  const pending = await findChallenge(db, idHash, input.now);
  if (!pending) return { kind: 'expired' };
  const user = { id: pending.user_id, email: pending.email };
  const keys = throttleKeys(user.email, input.ip);
  const retryAt = await claimAttempt(db, keys, input.now);
  if (retryAt) return throttled(retryAt, input.now);
  const method = await checkSecondFactor(db, user, input.code, input.now);
  if (!method) {
    await recordAudit(db, { environmentId: null, userId: user.id, email: user.email, action: 'sign_in_failed', detail: { step: 'code' }, ip: input.ip }, input.now);
    return { kind: 'refused' };
  }
  const [first] = await membershipsOf(db, user.id);
  if (!(await endChallenge(db, idHash)) || !first) return { kind: 'expired' };
  // A recovery code used is worth an owner's notice: the authenticator may be lost.
  return signedIn(db, user, first.environment_id, input.ip, input.now, method === 'recovery_code' ? 'signed_in_recovery' : 'signed_in');
}

type Proof = { password: string; code: string; ip: string; now: Date; passwordCost: number };

/**
 * Proves a signed-in user is who the session says, for a sensitive action: their password,
 * and a code (from the app or a recovery code) when their second factor is on or
 * `requireCode`, under the sign-in limits; a failure audited as `failedAction` (with
 * `environmentId` when the action is an environment's). A stolen session alone cannot.
 */
export async function reauthenticate(
  db: Db,
  user: { id: string; email: string },
  input: Proof & { failedAction: string; environmentId?: string; requireCode?: boolean },
): Promise<'ok' | 'refused' | { retryAfterS: number }> {
  const keys = throttleKeys(user.email, input.ip);
  const retryAt = await claimAttempt(db, keys, input.now);
  if (retryAt) return { retryAfterS: throttled(retryAt, input.now).retryAfterS };
  const stored = await findUserByEmail(db, user.email);
  const passwordOk = await verifyPassword(input.password, stored?.password_hash ?? null, input.passwordCost);
  // Checked only after the password: a wrong password must not use up a recovery code.
  const codeNeeded = passwordOk && (input.requireCode || (await hasSecondFactor(db, user.id)));
  const ok = passwordOk && (!codeNeeded || !!(await checkSecondFactor(db, user, input.code, input.now)));
  if (!ok) {
    await recordAudit(db, { environmentId: input.environmentId ?? null, userId: user.id, email: user.email, action: input.failedAction, ip: input.ip }, input.now);
    return 'refused';
  }
  await goodStep(db, keys);
  return 'ok';
}

/** Turns the user's second factor off, proven by their password and a code (reauthenticate). */
export async function turnOffWithProof(db: Db, user: { id: string; email: string }, input: Proof): Promise<'off' | 'refused' | { retryAfterS: number }> {
  const proof = await reauthenticate(db, user, { ...input, failedAction: 'totp_disable_failed', requireCode: true });
  if (proof !== 'ok') return proof;
  await turnOffSecondFactor(db, user.id);
  await recordAudit(db, { environmentId: null, userId: user.id, email: user.email, action: 'totp_disabled', ip: input.ip }, input.now);
  return 'off';
}

export interface ActiveSession {
  idHash: string;
  csrf: string;
  userId: string;
  email: string;
  memberships: Membership[];
  /** The membership the session is looking at. */
  current: Membership;
  /** Which of the platform's sections its environment uses (the navigation shows those). */
  inUse: PlatformInUse;
}

/**
 * The live session behind a cookie, or null: unknown, idle too long, past its absolute
 * end, or its user no longer belongs to the environment it was looking at (then it moves
 * to another of theirs, or ends).
 */
export async function resolveSession(db: Db, cookie: string, now: Date): Promise<ActiveSession | null> {
  const idHash = hashToken(cookie);
  const found = await findSession(db, idHash);
  if (!found) return null;
  const { session, user } = found;
  const t = now.getTime();
  if (t >= Date.parse(session.expires_at) || t >= Date.parse(session.last_seen_at) + SESSION_IDLE_MS) {
    await deleteSession(db, idHash);
    return null;
  }
  const memberships = await membershipsOf(db, user.id);
  const current = memberships.find((m) => m.environment_id === session.environment_id) ?? memberships[0];
  if (!current) {
    await deleteSession(db, idHash);
    return null;
  }
  const patch: Parameters<typeof updateSession>[2] = {};
  if (current.environment_id !== session.environment_id) patch.environment_id = current.environment_id;
  if (t - Date.parse(session.last_seen_at) >= TOUCH_EVERY_MS) patch.last_seen_at = now.toISOString();
  if (Object.keys(patch).length) await updateSession(db, idHash, patch);
  const inUse = await platformInUse(db, current.environment_id);
  return { idHash, csrf: session.csrf_token, userId: user.id, email: user.email, memberships, current, inUse };
}

/** Moves the session to another of the user's environments; false when it is not theirs. */
export async function switchEnvironment(db: Db, s: ActiveSession, environmentId: string): Promise<boolean> {
  if (!s.memberships.some((m) => m.environment_id === environmentId)) return false;
  await updateSession(db, s.idHash, { environment_id: environmentId });
  return true;
}

export const signOut = (db: Db, s: ActiveSession) => deleteSession(db, s.idHash);
export const signOutEverywhere = (db: Db, s: ActiveSession) => deleteSessionsOf(db, s.userId);
