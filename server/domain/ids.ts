import { createHash } from 'node:crypto';
import { secureRandomBytes } from './random';

/** The millisecond of the last id made here, and its 12-bit sequence. */
let lastMs = -1;
let sequence = 0;

/**
 * RFC 9562 UUIDv7: 48-bit Unix milliseconds, a 12-bit sequence, then randomness, so ids sort
 * by creation. Ids made in one millisecond by this process follow each other (section 6.2,
 * method 1: the sequence starts at random below its half, so at least 2,048 fit, and goes up
 * by one): a payment's events, made in one transaction at one time, list in the
 * order they were made. Past that, or at another millisecond, it starts again at random.
 */
export function uuidv7(now: number = Date.now()): string {
  const bytes = secureRandomBytes(16);
  sequence = now === lastMs && sequence < 0xfff ? sequence + 1 : bytes.readUInt16BE(6) & 0x7ff;
  lastMs = now;
  bytes.writeUIntBE(now, 0, 6);
  bytes.writeUInt16BE(0x7000 | sequence, 6);
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** 192 random bits, URL-safe: the customer-facing handle of a transaction, never its id. */
export function newToken(): string {
  return secureRandomBytes(24).toString('base64url');
}

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** RFC 9562 UUIDv5 (name-based, SHA-1): the same name always gives the same id. */
export function uuidv5(name: string, namespace: string): string {
  const ns = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  const hash = createHash('sha1').update(ns).update(name).digest().subarray(0, 16);
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
