import { randomBytes, scrypt, type ScryptOptions, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { SINGLE_LINE } from '../../widget/fields/text';

// Dashboard passwords: scrypt (memory-hard), parameters written into every hash so they can
// be raised later without invalidating stored ones. N = 2^15, r = 8, p = 1 uses 32 MiB and
// about 50–100 ms of one core per hash here: OWASP's recommended minimum for scrypt
// (N ≥ 2^17 with r = 8 needs 128 MiB, too much for a small service signing in in parallel).
// The cost (log2 N) is the service's PASSWORD_HASH_COST: test suites set a lower one, as
// they hash thousands of passwords; a hash keeps the cost it was made with.

const SCRYPT = { r: 8, p: 1, keyLength: 32, saltLength: 16 } as const;
/** log2 of N: PASSWORD_HASH_COST's default. */
export const DEFAULT_PASSWORD_COST = 15;
const MIN_PASSWORD_LENGTH = 12;
/** Longer inputs are refused before hashing: scrypt's cost grows with them. */
const MAX_PASSWORD_LENGTH = 256;

function derive(password: string, salt: Buffer, params: { N: number; r: number; p: number }, length: number): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: 256 * params.N * params.r };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, length, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** `scrypt$N$r$p$<salt base64url>$<hash base64url>`, N = 2^cost. */
export async function hashPassword(password: string, cost: number): Promise<string> {
  const salt = randomBytes(SCRYPT.saltLength);
  const N = 2 ** cost;
  const key = await derive(password, salt, { N, r: SCRYPT.r, p: SCRYPT.p }, SCRYPT.keyLength);
  return ['scrypt', N, SCRYPT.r, SCRYPT.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

// Verified against when the account is unknown, so that an unknown email costs the same
// time as a wrong password; one per cost.
const dummyHashes = new Map<number, Promise<string>>();

/**
 * Whether `password` matches `stored`; with no stored hash, spends the time of a hash of
 * `cost` (the one new passwords get) and says no.
 */
export async function verifyPassword(password: string, stored: string | null, cost: number): Promise<boolean> {
  let dummy = dummyHashes.get(cost);
  if (!stored && !dummy) dummyHashes.set(cost, (dummy = hashPassword(randomBytes(16).toString('hex'), cost)));
  const hash = stored ?? (await dummy!);
  const [scheme, n, r, p, salt, expected] = hash.split('$');
  if (scheme !== 'scrypt' || !salt || !expected) return false;
  const want = Buffer.from(expected, 'base64url');
  const got = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) }, want.length);
  return timingSafeEqual(got, want) && stored !== null;
}

let common: Set<string> | undefined;

function commonPasswords(): Set<string> {
  common ??= new Set(
    readFileSync(new URL('./common-passwords.txt', import.meta.url), 'utf8')
      .split('\n')
      .filter((line) => line && !line.startsWith('# '))
      .map((line) => line.toLowerCase()),
  );
  return common;
}

export type PasswordProblem = 'too_short' | 'too_long' | 'common' | 'control';

/** Why a new password is refused, or null when it is acceptable. */
export function passwordProblem(password: string): PasswordProblem | null {
  // Nobody types a control character or half a surrogate pair; and scrypt's HMAC pads its
  // key with zeros, so trailing NULs would not even count.
  if (!SINGLE_LINE.test(password)) return 'control';
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) return 'too_short';
  if (length > MAX_PASSWORD_LENGTH) return 'too_long';
  if (commonPasswords().has(password.toLowerCase())) return 'common';
  return null;
}
