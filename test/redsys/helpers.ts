import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PUBLIC_TEST_KEY } from '../../server/payments/redsys/settings';
import { encodeParameters, sign, type SignatureVersion } from '../../server/payments/redsys/signature';

// What the Redsys tests share: signing a request as a merchant would, driving the double's
// payment page as a customer would (a direct POST of its form), and a merchant URL that
// keeps every notification it receives, raw.

export function signedFields(params: Record<string, string>, options: { key?: string; version?: SignatureVersion } = {}) {
  const version = options.version ?? 'HMAC_SHA256_V1';
  const encoded = encodeParameters(params);
  return { Ds_SignatureVersion: version, Ds_MerchantParameters: encoded, Ds_Signature: sign(version, options.key ?? PUBLIC_TEST_KEY, params.DS_MERCHANT_ORDER ?? '', encoded) };
}

/** Posts the three fields to the payment page, as the customer's browser does. */
export const postForm = (url: string, fields: Record<string, string>) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString(), redirect: 'manual' });

/** The customer on the double's page: opens it, then approves, denies or runs out of funds. The decision's answer (303 to URLOK / URLKO, or 200). */
export async function decideOnPage(url: string, fields: Record<string, string>, decision: 'approve' | 'deny' | 'insufficient'): Promise<Response> {
  const page = await postForm(url, fields);
  const html = await page.text();
  if (page.status !== 200) throw new Error(`the payment page refused: ${page.status} ${html}`);
  const session = /name="session" value="([0-9a-f]+)"/.exec(html)?.[1];
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  if (!session || !action) throw new Error('no decision form on the page');
  return postForm(new URL(action, url).toString(), { session, decision });
}

export interface Received {
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A merchant URL on loopback that keeps each notification (answers 200, as Redsys expects). */
export async function startReceiver(): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/notify`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
