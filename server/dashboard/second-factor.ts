import { createHash, randomInt } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import type { Db } from '../store/db';
import { removeTotp, startTotp, takeStep, totpOf, unusedRecoveryCodes, useRecoveryCode } from '../store/totp';

// The optional second factor of a dashboard user: a TOTP authenticator (RFC 6238: SHA-1,
// 6 digits, 30 s, what every authenticator app reads from an otpauth:// URI) with ten
// single-use recovery codes. A code is good once: its time step must be later than the
// last one taken.

const ISSUER = 'Payments dashboard';
const PERIOD_S = 30;
/** One step either side: a phone's clock a little off, or a code typed as it changed. */
const WINDOW = 1;
const RECOVERY_CODES = 10;
/** Crockford's base32 alphabet (no i, l, o, u): 10 characters are 50 random bits. */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

const totpFor = (secret: string, email: string) =>
  new TOTP({ issuer: ISSUER, label: email, algorithm: 'SHA1', digits: 6, period: PERIOD_S, secret: Secret.fromBase32(secret) });

/** What a person types: spaces and dashes dropped, any case. */
const normalised = (code: string) => code.replace(/[\s-]/g, '').toLowerCase();
const hashCode = (code: string) => createHash('sha256').update(normalised(code)).digest('hex');

function newRecoveryCode(): string {
  const chars = Array.from({ length: 10 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

/** The time step a 6-digit code stands for now, or null when it is no code of this secret. */
function stepOf(secret: string, email: string, code: string, now: Date): number | null {
  const token = normalised(code);
  if (!/^\d{6}$/.test(token)) return null;
  const delta = totpFor(secret, email).validate({ token, timestamp: now.getTime(), window: WINDOW });
  return delta === null ? null : Math.floor(now.getTime() / 1000 / PERIOD_S) + delta;
}

export interface Enrolment {
  /** Base32, for typing into an app by hand. */
  secret: string;
  uri: string;
  /** The URI as a QR code, an SVG document. */
  qrSvg: string;
}

async function enrolmentFrom(secret: string, email: string): Promise<Enrolment> {
  const uri = totpFor(secret, email).toString();
  return { secret, uri, qrSvg: await QRCode.toString(uri, { type: 'svg', margin: 4, errorCorrectionLevel: 'M' }) };
}

export type SecondFactorState = { kind: 'off' } | { kind: 'pending'; enrolment: Enrolment } | { kind: 'on'; recoveryCodesLeft: number };

export async function secondFactorOf(db: Db, user: { id: string; email: string }): Promise<SecondFactorState> {
  const row = await totpOf(db, user.id);
  if (!row) return { kind: 'off' };
  if (!row.confirmed_at) return { kind: 'pending', enrolment: await enrolmentFrom(row.secret, user.email) };
  return { kind: 'on', recoveryCodesLeft: await unusedRecoveryCodes(db, user.id) };
}

/** A new secret to confirm (replacing one not confirmed); false when the factor is on already. */
export async function beginEnrolment(db: Db, userId: string, now: Date): Promise<boolean> {
  return startTotp(db, userId, new Secret({ size: 20 }).base32, now);
}

/** The first code from the app turns the factor on; the recovery codes come back once, here. */
export async function confirmEnrolment(db: Db, user: { id: string; email: string }, code: string, now: Date): Promise<string[] | null> {
  const row = await totpOf(db, user.id);
  if (!row || row.confirmed_at) return null;
  const step = stepOf(row.secret, user.email, code, now);
  if (step === null) return null;
  const codes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
  return (await takeStep(db, user.id, step, { codeHashes: codes.map(hashCode), now })) ? codes : null;
}

/** Whether the user's factor is on (sign-in must then ask for a code). */
export async function hasSecondFactor(db: Db, userId: string): Promise<boolean> {
  return !!(await totpOf(db, userId))?.confirmed_at;
}

/** Checks a code from the app, or else a recovery code (used up by this). */
export async function checkSecondFactor(db: Db, user: { id: string; email: string }, code: string, now: Date): Promise<'totp' | 'recovery_code' | null> {
  const row = await totpOf(db, user.id);
  if (!row?.confirmed_at || code.length > 64) return null;
  const step = stepOf(row.secret, user.email, code, now);
  if (step !== null) return (await takeStep(db, user.id, step)) ? 'totp' : null;
  return (await useRecoveryCode(db, user.id, hashCode(code), now)) ? 'recovery_code' : null;
}

export const turnOffSecondFactor = (db: Db, userId: string) => removeTotp(db, userId);
