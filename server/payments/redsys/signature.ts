import { createCipheriv, createHmac, timingSafeEqual } from 'node:crypto';

// Redsys's signatures (docs/processors.md "Redsys"). Both versions sign the base64 text of
// `Ds_MerchantParameters` as sent, under a key derived from the order number, so a
// signature made for one order cannot be replayed for another:
//
// - HMAC_SHA256_V1: the merchant key, base64-decoded (24 bytes), encrypts the order with
//   3DES-CBC, a zero IV and zero padding to a multiple of 8 bytes; HMAC-SHA256 under that
//   ciphertext; base64. Checked against every published vector of
//   test/vendor/redsys-hmac-sha256-v1-vectors.json.
// - HMAC_SHA512_V2: not derived the same way. The published example (Redsys's "Firmar una
//   operación", as reproduced by a third-party library: test/redsys/vectors-v2.json)
//   encrypts the order with AES-128-CBC under the first 16 characters of the key *as text*,
//   a zero IV and PKCS#7 padding, and takes the *base64 text* of that ciphertext as the
//   HMAC-SHA512 key; the signature is base64url without padding. We reproduce that one
//   example; nothing else of V2 was checked (docs/processors.md).
//
// Redsys sends notifications' signatures in base64url and REST answers' in standard
// base64, so a received signature is compared in one alphabet without padding, in
// constant time.

export const SIGNATURE_VERSIONS = ['HMAC_SHA256_V1', 'HMAC_SHA512_V2'] as const;
export type SignatureVersion = (typeof SIGNATURE_VERSIONS)[number];

/** The per-order key of HMAC_SHA256_V1: 3DES-CBC of the zero-padded order under the decoded merchant key. */
export function orderKeyV1(secretKey: string, order: string): Buffer {
  const key = Buffer.from(secretKey, 'base64');
  const text = Buffer.from(order, 'utf8');
  const padded = Buffer.alloc(Math.ceil(text.length / 8) * 8);
  text.copy(padded);
  // Zero padding, not PKCS#7: OpenSSL's own padding would add a block and change the key.
  const cipher = createCipheriv('des-ede3-cbc', key, Buffer.alloc(8));
  cipher.setAutoPadding(false);
  return Buffer.concat([cipher.update(padded), cipher.final()]);
}

/** The per-order key of HMAC_SHA512_V2: the base64 text of AES-128-CBC of the order (PKCS#7) under the key's first 16 characters. */
export function orderKeyV2(secretKey: string, order: string): string {
  const key = Buffer.from(secretKey.slice(0, 16).padEnd(16, '0'), 'utf8');
  const cipher = createCipheriv('aes-128-cbc', key, Buffer.alloc(16));
  return Buffer.concat([cipher.update(order, 'utf8'), cipher.final()]).toString('base64');
}

/** The signature of `parameters` (the base64 text of Ds_MerchantParameters, or the XML signed by the query service) for `order`. */
export function sign(version: SignatureVersion, secretKey: string, order: string, parameters: string): string {
  if (version === 'HMAC_SHA256_V1') return createHmac('sha256', orderKeyV1(secretKey, order)).update(parameters, 'utf8').digest('base64');
  return createHmac('sha512', orderKeyV2(secretKey, order)).update(parameters, 'utf8').digest('base64url');
}

/** The same signature in one alphabet: base64url, no padding. */
const normalized = (signature: string) => signature.trim().replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');

/** Whether `signature` (base64 or base64url, padded or not) is the one `parameters` has for `order`, compared in constant time. */
export function verify(version: SignatureVersion, secretKey: string, order: string, parameters: string, signature: string): boolean {
  const expected = Buffer.from(normalized(sign(version, secretKey, order, parameters)), 'utf8');
  const received = Buffer.from(normalized(signature), 'utf8');
  // timingSafeEqual needs equal lengths; a length is no secret (each version's is fixed).
  return expected.length === received.length && timingSafeEqual(expected, received);
}

/** Ds_MerchantParameters: the JSON of the parameters, base64. */
export const encodeParameters = (parameters: Record<string, string>): string => Buffer.from(JSON.stringify(parameters), 'utf8').toString('base64');

/** The parameters of a Ds_MerchantParameters (base64 or base64url), or null when it is not a JSON object of strings and numbers. */
export function decodeParameters(text: string): Record<string, unknown> | null {
  if (!/^[A-Za-z0-9+/_-]+=*$/.test(text)) return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(text.replaceAll('-', '+').replaceAll('_', '/'), 'base64').toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
