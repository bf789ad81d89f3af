import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { Request } from 'express';
import type { KeepNewSecret } from '../store/api-keys';
import { keepReveal, takeReveal } from '../store/api-key-reveals';
import type { Db } from '../store/db';
import type { ActiveSession } from './accounts';
import { cookie, SESSION_COOKIE } from './http';

// A key's new secret is shown on the GET a POST redirects to, once (docs/dashboard.md#api-keys).
// Until then it is stored sealed with AES-256-GCM under a key derived from the session's
// cookie: the database holds only that cookie's hash, so neither the database, its
// backups, nor SECRETS_KEY open it (which is also why it is not one of sealed-secrets.ts'
// columns: without SECRETS_KEY those are stored as they are). Only a request of the
// session that asked can open it, and the key's id is bound in, so a sealed value moved to
// another row does not open.

const keyOf = (sessionCookie: string) => createHmac('sha256', sessionCookie).update('api-key-reveal').digest();

function seal(secret: string, sessionCookie: string, keyId: string): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(sessionCookie), nonce).setAAD(Buffer.from(keyId));
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return Buffer.concat([nonce, cipher.getAuthTag(), body]).toString('base64url');
}

function open(sealed: string, sessionCookie: string, keyId: string): string | undefined {
  const raw = Buffer.from(sealed, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', keyOf(sessionCookie), raw.subarray(0, 12)).setAAD(Buffer.from(keyId));
  decipher.setAuthTag(raw.subarray(12, 28));
  try {
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return undefined; // not this session's (its cookie changed): as if there were none
  }
}

/** Keeps a new key's secret, in the transaction that made it, for this session's one showing. */
export function keepForSession(req: Request, s: ActiveSession, now: Date): KeepNewSecret {
  const sessionCookie = cookie(req, SESSION_COOKIE)!;
  return (trx, key) => keepReveal(trx, { keyId: key.id, sessionIdHash: s.idHash, sealed: seal(key.secret_key, sessionCookie, key.id) }, now);
}

/** The secret kept for this session's showing, taken as it is read; undefined once shown (or never this session's). */
export async function takeForSession(db: Db, req: Request, s: ActiveSession, keyId: string, now: Date): Promise<string | undefined> {
  const sessionCookie = cookie(req, SESSION_COOKIE);
  const sealed = sessionCookie && (await takeReveal(db, keyId, s.idHash, now));
  return sealed ? open(sealed, sessionCookie, keyId) : undefined;
}
