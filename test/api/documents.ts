import { request } from 'node:http';
import type { Db } from '../../server/store/db';

// Small real files of each accepted kind, and bodies for the client routes, shared by the
// client tests.

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const PDF = Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n');
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0xff, 0xd9]);
const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x1a, 0, 0, 0]), Buffer.from('WEBPVP8 '), Buffer.alloc(14)]);

export const FILES = {
  'application/pdf': { name: 'passport.pdf', bytes: PDF },
  'image/png': { name: 'id-front.png', bytes: PNG },
  'image/jpeg': { name: 'id-back.jpg', bytes: JPEG },
  'image/webp': { name: 'statement.webp', bytes: WEBP },
} as const;

/** A PDF of exactly `size` bytes: the header, then padding a PDF reader ignores as a comment. */
export function pdfOfSize(size: number): Buffer {
  const bytes = Buffer.alloc(size, 0x20);
  PDF.copy(bytes, 0, 0, Math.min(PDF.length, size));
  return bytes;
}

export function documentBody(over: { type?: string; name?: string; content_type?: string; bytes?: Buffer } = {}) {
  const content_type = over.content_type ?? 'application/pdf';
  const known = FILES[content_type as keyof typeof FILES] ?? FILES['application/pdf'];
  return {
    type: over.type ?? 'identity_front',
    file: { name: over.name ?? known.name, content_type, data: (over.bytes ?? known.bytes).toString('base64') },
  };
}

export function clientBody(over: Record<string, unknown> = {}) {
  return { name: 'Ada Lovelace', id_country: 'GB', id_number: 'X1234567', ...over };
}

/** Valid IBANs of several countries (each from its country's published example). */
export const IBANS = {
  ES: 'ES9121000418450200051332',
  DE: 'DE89370400440532013000',
  GB: 'GB29NWBK60161331926819',
  FR: 'FR1420041010050500013M02606',
} as const;

/**
 * POSTs a large JSON body on a connection of its own. Through fetch's pool, a body that
 * takes seconds to build and send on a loaded machine can land on a kept-alive
 * connection just as the server's keep-alive timeout closes it (ECONNRESET).
 */
export async function postOnOwnConnection(url: string, auth: string, body: unknown): Promise<{ status: number; body: any }> {
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      agent: false,
      headers: { authorization: auth, 'content-type': 'application/json', 'content-length': payload.length },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString()) }));
      res.on('error', reject);
    });
    req.end(payload);
  });
}

/**
 * What an owner's confirmation from the email does (docs/balance.md "A new bank account is
 * held"), for tests whose point is a payout to a second account, not the hold:
 * dashboard-payout-account.test.ts tests the confirmation itself.
 */
export async function confirmNewAccount(db: Db, environmentId: string): Promise<void> {
  await db.updateTable('merchant_payout_settings').set({ payouts_held_until: null }).where('environment_id', '=', environmentId).execute();
}
