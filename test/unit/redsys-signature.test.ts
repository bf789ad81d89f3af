import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { orderNumber, ORDER_PATTERN } from '../../server/payments/redsys/order';
import { redsysSettingsSchema } from '../../server/payments/redsys/settings';
import { decodeParameters, orderKeyV1, orderKeyV2, sign, verify } from '../../server/payments/redsys/signature';

// Redsys's signatures against every published HMAC_SHA256_V1 vector (test/vendor) and
// the one HMAC_SHA512_V2 example we have (test/redsys/vectors-v2.json), the constant-time
// comparison's refusals, the order numbers, and the settings' refusal of the published test
// terminal in live.

interface Vector {
  what: string;
  secret_key: string;
  order: string;
  order_key_base64?: string;
  Ds_MerchantParameters: string;
  Ds_Signature: string;
}

const vendored = JSON.parse(readFileSync(new URL('../vendor/redsys-hmac-sha256-v1-vectors.json', import.meta.url), 'utf8')) as { vectors: Vector[] };
const v2 = JSON.parse(readFileSync(new URL('../redsys/vectors-v2.json', import.meta.url), 'utf8')) as Vector;

describe('HMAC_SHA256_V1: every vendored vector', () => {
  it('has all three vectors', () => expect(vendored.vectors).toHaveLength(3));

  it.each(vendored.vectors.map((v) => [v.what, v] as const))('%s', (_, v) => {
    if (v.order_key_base64) expect(orderKeyV1(v.secret_key, v.order).toString('base64')).toBe(v.order_key_base64);
    const signature = sign('HMAC_SHA256_V1', v.secret_key, v.order, v.Ds_MerchantParameters);
    // The notification's is published in base64url: the same bytes.
    expect(signature.replaceAll('+', '-').replaceAll('/', '_')).toBe(v.Ds_Signature.replaceAll('+', '-').replaceAll('/', '_'));
    expect(verify('HMAC_SHA256_V1', v.secret_key, v.order, v.Ds_MerchantParameters, v.Ds_Signature)).toBe(true);
    expect(decodeParameters(v.Ds_MerchantParameters)).toMatchObject({});
  });

  it('refuses a signature of other parameters, another order, another key, another version, or another length', () => {
    const v = vendored.vectors[0]!;
    const tampered = Buffer.from(JSON.stringify({ ...decodeParameters(v.Ds_MerchantParameters), DS_MERCHANT_AMOUNT: '1' })).toString('base64');
    expect(verify('HMAC_SHA256_V1', v.secret_key, v.order, tampered, v.Ds_Signature)).toBe(false);
    expect(verify('HMAC_SHA256_V1', v.secret_key, '0726qI3H7sZy', v.Ds_MerchantParameters, v.Ds_Signature)).toBe(false);
    expect(verify('HMAC_SHA256_V1', vendored.vectors[2]!.secret_key, v.order, v.Ds_MerchantParameters, v.Ds_Signature)).toBe(false);
    expect(verify('HMAC_SHA512_V2', v.secret_key, v.order, v.Ds_MerchantParameters, v.Ds_Signature)).toBe(false);
    expect(verify('HMAC_SHA256_V1', v.secret_key, v.order, v.Ds_MerchantParameters, v.Ds_Signature.slice(0, -2))).toBe(false);
    expect(verify('HMAC_SHA256_V1', v.secret_key, v.order, v.Ds_MerchantParameters, '')).toBe(false);
  });

  it('pads with zeros, not PKCS#7: an 8-character order stays one block', () => {
    expect(orderKeyV1(vendored.vectors[0]!.secret_key, '12345678')).toHaveLength(8);
    expect(orderKeyV1(vendored.vectors[0]!.secret_key, '123456789')).toHaveLength(16);
  });
});

describe('HMAC_SHA512_V2: the published example', () => {
  it('derives the order key with AES-128-CBC and signs with HMAC-SHA512 in base64url', () => {
    expect(orderKeyV2(v2.secret_key, v2.order)).toBe(v2.order_key_base64);
    expect(sign('HMAC_SHA512_V2', v2.secret_key, v2.order, v2.Ds_MerchantParameters)).toBe(v2.Ds_Signature);
    expect(verify('HMAC_SHA512_V2', v2.secret_key, v2.order, v2.Ds_MerchantParameters, v2.Ds_Signature)).toBe(true);
    expect(verify('HMAC_SHA256_V1', v2.secret_key, v2.order, v2.Ds_MerchantParameters, v2.Ds_Signature)).toBe(false);
    expect(verify('HMAC_SHA512_V2', v2.secret_key, '1234567891', v2.Ds_MerchantParameters, v2.Ds_Signature)).toBe(false);
  });
});

describe('order numbers', () => {
  it('are 4 digits then 8 letters or digits, the same for the same reference and attempt', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 5_000; i++) {
      const order = orderNumber(`gc_${i}`);
      expect(order).toMatch(ORDER_PATTERN);
      expect(order).toHaveLength(12);
      seen.add(order);
    }
    expect(seen.size).toBe(5_000);
    expect(orderNumber('gc_1')).toBe(orderNumber('gc_1'));
    expect(orderNumber('gc_1', 1)).not.toBe(orderNumber('gc_1'));
  });
});

describe('settings', () => {
  const base = { merchant_code: '999008881', terminal: '1', secret_key: 'sq7HjrUOBfKmC576ILgskD5srU870gJ7', signature_version: 'HMAC_SHA256_V1' as const };

  it("uses Redsys's test host for sandboxes and its production host for live, with the documented paths", () => {
    expect(redsysSettingsSchema.parse(base).urls).toEqual({
      redirect: 'https://sis-t.redsys.es:25443/sis/realizarPago',
      rest: 'https://sis-t.redsys.es:25443/sis/rest/trataPeticionREST',
      query: 'https://sis-t.redsys.es:25443/apl02/services/SerClsWSConsulta',
    });
    const live = redsysSettingsSchema.parse({ ...base, merchant_code: '123456789', secret_key: Buffer.alloc(24, 7).toString('base64'), live: true });
    expect(live.urls.redirect).toBe('https://sis.redsys.es/sis/realizarPago');
    expect(live.origin).toBe('https://sis.redsys.es');
  });

  it('refuses the published test terminal, or its key, in live, with a clear message', () => {
    const refused = redsysSettingsSchema.safeParse({ ...base, live: true });
    expect(refused.success).toBe(false);
    expect(refused.error!.issues[0]).toMatchObject({ path: ['merchant_code'], message: expect.stringContaining('published test terminal') });
    const key = redsysSettingsSchema.safeParse({ ...base, merchant_code: '123456789', live: true });
    expect(key.error!.issues[0]).toMatchObject({ path: ['secret_key'] });
  });

  it('refuses a key that is not 24 bytes of base64 and an unknown signature version', () => {
    expect(redsysSettingsSchema.safeParse({ ...base, secret_key: 'c2hvcnQ=' }).success).toBe(false);
    expect(redsysSettingsSchema.safeParse({ ...base, signature_version: 'HMAC_SHA1' }).success).toBe(false);
  });
});
