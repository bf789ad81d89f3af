import { expect } from 'vitest';
import { REDSYS_CARD_ID } from '../../server/payments/redsys/gateway';
import { pageCsrf } from './pay';

// The steps of a Redsys payment by redirect without JavaScript, shared by the Redsys tests of
// the service (redsys-processor.test.ts, in the test's process; the fault matrix, in service
// processes): the payment page's pay post, then our page whose form posts the customer to
// Redsys.

const FORM = 'application/x-www-form-urlencoded';

/** The pay post on the service at `baseUrl`, then our page with the form that posts to Redsys (at `redsysUrl`): its action and fields, and the call's reference. */
export async function toRedsys(baseUrl: string, redsysUrl: string, token: string, gateway = REDSYS_CARD_ID): Promise<{ url: string; fields: Record<string, string>; reference: string }> {
  const started = await fetch(`${baseUrl}/pay/${token}/`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': FORM, origin: baseUrl },
    body: new URLSearchParams({ action: 'pay', gateway, csrf: await pageCsrf(baseUrl, token) }),
  });
  return redsysForm(baseUrl, redsysUrl, started);
}

/** From the pay post's answer (a 303 to our page that posts the customer on): that page's form to Redsys, and the call's reference. */
export async function redsysForm(baseUrl: string, redsysUrl: string, started: Response): Promise<{ url: string; fields: Record<string, string>; reference: string }> {
  expect(started.status, await started.clone().text()).toBe(303);
  const go = started.headers.get('location')!;
  const reference = /\/go\/([^/]+)\/$/.exec(go)?.[1];
  if (!reference) throw new Error(`not sent to Redsys: ${go}`);
  return { ...(await formOn(baseUrl, redsysUrl, go)), reference };
}

/** Our page at `path` (a payment's `/go/…/`, a save page's `/challenge/`) whose form posts the customer to Redsys: its action and fields. */
export async function formOn(baseUrl: string, redsysUrl: string, path: string): Promise<{ url: string; fields: Record<string, string> }> {
  const page = await fetch(new URL(path, baseUrl));
  const html = await page.text();
  expect(page.headers.get('content-security-policy')).toContain(`form-action 'self' ${redsysUrl}`);
  const url = /<form method="post" action="([^"]+)" id="redirect">/.exec(html)![1]!;
  const fields = Object.fromEntries([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!]));
  return { url, fields };
}

/** The Ds_Merchant parameters of the form's fields (its order number: `DS_MERCHANT_ORDER`). */
export const paramsOf = (fields: Record<string, string>) => JSON.parse(Buffer.from(fields.Ds_MerchantParameters!, 'base64').toString('utf8')) as Record<string, string>;
