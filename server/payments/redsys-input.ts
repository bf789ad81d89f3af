import { z } from 'zod';
import { PUBLIC_TEST_KEY, PUBLIC_TEST_MERCHANT, terminalFields } from './redsys/settings';
import { SIGNATURE_VERSIONS } from './redsys/signature';

// What connecting a Redsys terminal takes (processor-input.ts holds Stripe's and the union):
// the terminal's own field rules are the connector's (redsys/settings.ts), so the API refuses
// what the connector would. Redsys's published test terminal signs for anyone, so it never
// reaches a live environment (a 400 naming the field).

export const redsysInput = z.strictObject({
  type: z.literal('redsys').describe('Redsys: a virtual terminal of your bank, with its card and Bizum gateways'),
  merchant_code: terminalFields.merchant_code.describe('The terminal’s merchant code (Redsys’s FUC, up to 9 digits)'),
  terminal: terminalFields.terminal.describe('The terminal number (up to 3 digits)'),
  secret_key: terminalFields.secret_key.describe('The terminal’s secret key (base64, 32 characters), from your bank’s Redsys back office. Write-only: never shown again, only its last four characters'),
  signature_version: z.enum(SIGNATURE_VERSIONS).describe('What Redsys signs with for this terminal: `HMAC_SHA256_V1` or `HMAC_SHA512_V2`; a notification under another version is refused'),
});

/** Redsys's published test terminal, refused in a live environment. */
export function redsysLiveErrors(input: { merchant_code?: unknown; secret_key?: unknown }, live: boolean): { path: string; message: string }[] {
  if (!live) return [];
  const message = 'is Redsys’s published test terminal (merchant 999008881, a public key): a live environment cannot connect it';
  return [
    ...(input.merchant_code === PUBLIC_TEST_MERCHANT ? [{ path: 'merchant_code', message }] : []),
    ...(input.secret_key === PUBLIC_TEST_KEY ? [{ path: 'secret_key', message }] : []),
  ];
}
