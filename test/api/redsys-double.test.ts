import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readQueryAnswer } from '../../server/payments/redsys/query';
import { PUBLIC_TEST_KEY, REDSYS_PATHS } from '../../server/payments/redsys/settings';
import { decodeParameters, sign, verify } from '../../server/payments/redsys/signature';
import { decideOnPage, postForm, type Received, signedFields, startReceiver } from '../redsys/helpers';
import { type RedsysDouble, startRedsysDouble } from '../redsys/server';

// Contract tests of the Redsys test double, driven as a merchant and a customer would (signed
// fields, its page's form, REST JSON, SOAP), each with a request the double must refuse as
// Redsys refuses it, so that the double stays as strict as Redsys.

let double: RedsysDouble;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let n = 0;
const order = () => `${String(1000 + (n++ % 9000))}Dbl${Date.now().toString(36).slice(-5)}`;
const OTHER_KEY = Buffer.alloc(24, 9).toString('base64');

const payment = (o: string, extra: Record<string, string> = {}) => ({
  DS_MERCHANT_AMOUNT: '2500', DS_MERCHANT_ORDER: o, DS_MERCHANT_MERCHANTCODE: '999008881', DS_MERCHANT_CURRENCY: '978', DS_MERCHANT_TRANSACTIONTYPE: '0', DS_MERCHANT_TERMINAL: '1',
  DS_MERCHANT_MERCHANTURL: receiver.url, DS_MERCHANT_URLOK: 'https://shop.example/ok', DS_MERCHANT_URLKO: 'https://shop.example/ko', DS_MERCHANT_MERCHANTDATA: 'gc_test', ...extra,
});

async function restCall(params: Record<string, string>, key?: string): Promise<Record<string, string>> {
  const response = await fetch(double.url + REDSYS_PATHS.rest, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(signedFields(params, { key })) });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, string>;
}

const operation = (o: string, type: string, amount: string, terminal = '1') => ({ DS_MERCHANT_AMOUNT: amount, DS_MERCHANT_ORDER: o, DS_MERCHANT_MERCHANTCODE: '999008881', DS_MERCHANT_CURRENCY: '978', DS_MERCHANT_TRANSACTIONTYPE: type, DS_MERCHANT_TERMINAL: terminal });

/** The decoded, verified parameters of a signed answer. */
function readSigned(fields: Record<string, string>): Record<string, unknown> {
  const params = decodeParameters(fields.Ds_MerchantParameters!)!;
  expect(verify('HMAC_SHA256_V1', PUBLIC_TEST_KEY, String(params.Ds_Order), fields.Ds_MerchantParameters!, fields.Ds_Signature!)).toBe(true);
  return params;
}

async function paid(o: string, extra: Record<string, string> = {}): Promise<Received> {
  const before = receiver.received.length;
  const answer = await decideOnPage(double.url + REDSYS_PATHS.redirect, signedFields(payment(o, extra)), 'approve');
  expect(answer.status).toBe(303);
  expect(receiver.received.length).toBe(before + 1);
  return receiver.received.at(-1)!;
}

function query(o: string, type: string, terminal = '1', key = PUBLIC_TEST_KEY) {
  const version = `<Version Ds_Version="0.0"><Message><Transaction><Ds_MerchantCode>999008881</Ds_MerchantCode><Ds_Terminal>${terminal}</Ds_Terminal><Ds_Order>${o}</Ds_Order><Ds_TransactionType>${type}</Ds_TransactionType></Transaction></Message></Version>`;
  // The query signs its <Version> element, not merchant parameters.
  const xmlSignature = sign('HMAC_SHA256_V1', key, o, version);
  const body = `<soapenv:Envelope><soapenv:Body><web:consultaOperaciones><cadenaXML><![CDATA[<Messages>${version}<Signature>${xmlSignature}</Signature><SignatureVersion>HMAC_SHA256_V1</SignatureVersion></Messages>]]></cadenaXML></web:consultaOperaciones></soapenv:Body></soapenv:Envelope>`;
  return fetch(double.url + REDSYS_PATHS.query, { method: 'POST', headers: { 'content-type': 'text/xml' }, body }).then(async (r) => readQueryAnswer(await r.text()));
}

beforeAll(async () => {
  double = await startRedsysDouble();
  receiver = await startReceiver();
});
afterAll(async () => {
  await double.close();
  await receiver.close();
});

describe('the Redsys double: payment page', () => {
  it('takes a signed payment, notifies the merchant URL with a base64url signature, and sends the customer to URLOK with signed parameters', async () => {
    const o = order();
    const notified = await paid(o);
    expect(notified.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const fields = Object.fromEntries(new URLSearchParams(notified.body.toString()));
    expect(fields.Ds_SignatureVersion).toBe('HMAC_SHA256_V1');
    expect(fields.Ds_Signature).toMatch(/^[A-Za-z0-9_-]+=*$/);
    expect(readSigned(fields)).toMatchObject({ Ds_Order: o, Ds_Amount: '2500', Ds_Currency: '978', Ds_Response: '0000', Ds_TransactionType: '0', Ds_Terminal: '001', Ds_MerchantData: 'gc_test' });
    expect(double.requests.at(-1)).toMatchObject({ service: 'decide', status: 303 });
    const denied = await decideOnPage(double.url + REDSYS_PATHS.redirect, signedFields(payment(order())), 'deny');
    const location = new URL(denied.headers.get('location')!);
    expect(location.origin + location.pathname).toBe('https://shop.example/ko');
    expect(readSigned(Object.fromEntries(location.searchParams))).toMatchObject({ Ds_Response: '0190' });
  });

  it('refuses a repeated order (SIS0051), an unknown parameter, a wrong key, and an unknown signature version', async () => {
    const o = order();
    await paid(o);
    const again = await postForm(double.url + REDSYS_PATHS.redirect, signedFields(payment(o)));
    expect(again.status).toBe(400);
    expect(await again.text()).toContain('SIS0051');
    const unknown = await postForm(double.url + REDSYS_PATHS.redirect, signedFields(payment(order(), { DS_MERCHANT_COLOUR: 'blue' })));
    expect(await unknown.text()).toContain('SIS9901');
    const wrongKey = await postForm(double.url + REDSYS_PATHS.redirect, signedFields(payment(order()), { key: OTHER_KEY }));
    expect(await wrongKey.text()).toContain('SIS0042');
    const version = await postForm(double.url + REDSYS_PATHS.redirect, { ...signedFields(payment(order())), Ds_SignatureVersion: 'HMAC_SHA1_V0' });
    expect(version.status).toBe(400);
  });

  it('offers Bizum for an immediate euro payment only, and answers it as paid by Bizum', async () => {
    const notified = await paid(order(), { DS_MERCHANT_PAYMETHODS: 'z' });
    expect(readSigned(Object.fromEntries(new URLSearchParams(notified.body.toString())))).toMatchObject({ Ds_Response: '0000', Ds_ProcessedPayMethod: '68' });
    const usd = await postForm(double.url + REDSYS_PATHS.redirect, signedFields(payment(order(), { DS_MERCHANT_PAYMETHODS: 'z', DS_MERCHANT_CURRENCY: '840' })));
    expect(await usd.text()).toContain('Bizum takes immediate payments in euros only');
    const hold = await postForm(double.url + REDSYS_PATHS.redirect, signedFields(payment(order(), { DS_MERCHANT_PAYMETHODS: 'z', DS_MERCHANT_TRANSACTIONTYPE: '1' })));
    expect(hold.status).toBe(400);
  });
});

describe('the Redsys double: REST operations', () => {
  it('carries out a refund twice when it is sent twice, as Redsys does, and refuses an over-refund (SIS0057)', async () => {
    const o = order();
    await paid(o);
    expect(readSigned(await restCall(operation(o, '3', '1000')))).toMatchObject({ Ds_Response: '0900', Ds_Amount: '1000', Ds_TransactionType: '3' });
    expect(readSigned(await restCall(operation(o, '3', '1000')))).toMatchObject({ Ds_Response: '0900' });
    expect(double.books.find(double.terminals[0]!, o)!.operations.filter((x) => x.type === '3')).toHaveLength(2);
    expect(await restCall(operation(o, '3', '501'))).toEqual({ errorCode: 'SIS0057' });
    expect(await restCall(operation(order(), '3', '100'))).toEqual({ errorCode: 'SIS0054' });
  });

  it('refuses a request signed with another key (SIS0042) and an unknown parameter', async () => {
    const o = order();
    await paid(o);
    expect(await restCall(operation(o, '3', '100'), OTHER_KEY)).toEqual({ errorCode: 'SIS0042' });
    expect(await restCall({ ...operation(o, '3', '100'), DS_MERCHANT_URLOK: 'https://x.example' })).toEqual({ errorCode: 'SIS9901' });
    expect(double.books.find(double.terminals[0]!, o)!.operations).toHaveLength(0);
  });

  it('confirms part of a hold, cancels a hold, and refuses a confirmation above it', async () => {
    const held = order();
    await paid(held, { DS_MERCHANT_TRANSACTIONTYPE: '1' });
    expect(await restCall(operation(held, '2', '2501'))).toEqual({ errorCode: 'SIS0059' });
    expect(readSigned(await restCall(operation(held, '2', '2000')))).toMatchObject({ Ds_Response: '0900', Ds_TransactionType: '2' });
    const other = order();
    await paid(other, { DS_MERCHANT_TRANSACTIONTYPE: '1' });
    expect(readSigned(await restCall(operation(other, '9', '2500')))).toMatchObject({ Ds_Response: '0400' });
    expect(await restCall(operation(other, '9', '2500'))).toEqual({ errorCode: 'SIS9904' });
  });

  it('charges a stored card only with the fields Redsys requires for a merchant-initiated charge', async () => {
    const held = order();
    const notified = await paid(held, { DS_MERCHANT_TRANSACTIONTYPE: '1', DS_MERCHANT_IDENTIFIER: 'REQUIRED', DS_MERCHANT_COF_INI: 'S', DS_MERCHANT_COF_TYPE: 'C' });
    const stored = readSigned(Object.fromEntries(new URLSearchParams(notified.body.toString())));
    expect(stored).toMatchObject({ Ds_Merchant_Identifier: expect.stringMatching(/^[0-9a-f]{40}$/), Ds_Merchant_Cof_Txnid: expect.stringMatching(/^\d+$/) });
    const mit = { ...operation(order(), '0', '900'), DS_MERCHANT_IDENTIFIER: String(stored.Ds_Merchant_Identifier), DS_MERCHANT_COF_INI: 'N', DS_MERCHANT_COF_TYPE: 'C', DS_MERCHANT_COF_TXNID: String(stored.Ds_Merchant_Cof_Txnid), DS_MERCHANT_EXCEP_SCA: 'MIT', DS_MERCHANT_DIRECTPAYMENT: 'true' };
    const { DS_MERCHANT_EXCEP_SCA: _, ...withoutExemption } = mit;
    expect(await restCall({ ...withoutExemption, DS_MERCHANT_ORDER: order() })).toEqual({ errorCode: 'SIS9903' });
    expect(await restCall({ ...mit, DS_MERCHANT_ORDER: order(), DS_MERCHANT_COF_TXNID: '1' })).toEqual({ errorCode: 'SIS9903' });
    expect(readSigned(await restCall(mit))).toMatchObject({ Ds_Response: '0000', Ds_Amount: '900' });
    expect(await restCall(mit)).toEqual({ errorCode: 'SIS0051' });
  });
  it('stores a card in a validation of amount 0 on its page, and refuses what Redsys refuses of saved cards', async () => {
    const validation = { DS_MERCHANT_AMOUNT: '0', DS_MERCHANT_IDENTIFIER: 'REQUIRED', DS_MERCHANT_COF_INI: 'S', DS_MERCHANT_COF_TYPE: 'C', DS_MERCHANT_PAYMETHODS: 'C' };
    const notified = readSigned(Object.fromEntries(new URLSearchParams((await paid(order(), validation)).body.toString())));
    expect(notified).toMatchObject({ Ds_Amount: '0', Ds_Response: '0000', Ds_Merchant_Identifier: expect.stringMatching(/^[0-9a-f]{40}$/), Ds_Merchant_Cof_Txnid: expect.stringMatching(/^\d+$/) });
    const refusedPage = async (extra: Record<string, string>) => {
      const page = await postForm(double.url + REDSYS_PATHS.redirect, signedFields(payment(order(), extra)));
      expect(page.status, JSON.stringify(extra)).toBe(400);
      return /<p data-error-code>([^<]+)<\/p>/.exec(await page.text())?.[1];
    };
    // An amount of 0 that stores nothing; Bizum asked to store a card; an identifier it never issued; a first use without its type.
    expect(await refusedPage({ DS_MERCHANT_AMOUNT: '0' })).toBe('SIS9902');
    expect(await refusedPage({ ...validation, DS_MERCHANT_PAYMETHODS: 'z' })).toBe('SIS9902');
    expect(await refusedPage({ DS_MERCHANT_IDENTIFIER: 'f'.repeat(40) })).toBe('SIS9903');
    const { DS_MERCHANT_COF_TYPE: _type, ...untyped } = validation;
    expect(await refusedPage(untyped)).toBe('SIS9903');

    const mit = {
      ...operation(order(), '0', '900'), DS_MERCHANT_IDENTIFIER: String(notified.Ds_Merchant_Identifier), DS_MERCHANT_COF_INI: 'N', DS_MERCHANT_COF_TYPE: 'C',
      DS_MERCHANT_COF_TXNID: String(notified.Ds_Merchant_Cof_Txnid), DS_MERCHANT_EXCEP_SCA: 'MIT', DS_MERCHANT_DIRECTPAYMENT: 'true',
    };
    const { DS_MERCHANT_COF_TXNID: _, ...withoutTxnid } = mit;
    expect(await restCall({ ...withoutTxnid, DS_MERCHANT_ORDER: order() })).toEqual({ errorCode: 'SIS9903' });
    expect(await restCall({ ...mit, DS_MERCHANT_ORDER: order(), DS_MERCHANT_IDENTIFIER: 'f'.repeat(40) })).toEqual({ errorCode: 'SIS9903' });
    expect(await restCall({ ...mit, DS_MERCHANT_ORDER: order(), DS_MERCHANT_TERMINAL: '2' })).toEqual({ errorCode: 'SIS9903' });
    expect(await restCall({ ...mit, DS_MERCHANT_ORDER: order(), DS_MERCHANT_AMOUNT: '0' })).toEqual({ errorCode: 'SIS9902' });
    // Charged, then declined by the issuer when told to.
    expect(readSigned(await restCall(mit))).toMatchObject({ Ds_Response: '0000', Ds_Amount: '900' });
    double.declineNextCharge();
    const declined = { ...mit, DS_MERCHANT_ORDER: order() };
    expect(readSigned(await restCall(declined))).toMatchObject({ Ds_Response: '0190', Ds_Amount: '900' });
    expect(double.books.find(double.terminals[0]!, declined.DS_MERCHANT_ORDER)!.payment).toMatchObject({ response: '0190' });
  });
});

describe('the Redsys double: query service and switches', () => {
  it('lists the operations of a type on an order; XML0024 for none; a terminal without the service and a bad signature are refused', async () => {
    const o = order();
    await paid(o);
    await restCall(operation(o, '3', '700'));
    await restCall(operation(o, '3', '700'));
    const refunds = await query(o, '3');
    expect(refunds).toEqual({ operations: [expect.objectContaining({ Ds_Amount: '700', Ds_Response: '0900', Ds_Order: o }), expect.objectContaining({ Ds_Amount: '700' })] });
    expect(await query(o, '0')).toEqual({ operations: [expect.objectContaining({ Ds_Amount: '2500', Ds_Response: '0000', Ds_MerchantData: 'gc_test' })] });
    expect(await query(o, '2')).toEqual({ errorCode: 'XML0024' });
    expect(await query(o, '3', '2')).toEqual({ errorCode: 'XML9905' });
    expect(await query(o, '3', '1', OTHER_KEY)).toEqual({ errorCode: 'SIS0042' });
  });

  it('fails the next request before or after acting, and loses an answer after acting', async () => {
    const o = order();
    await paid(o);
    const refunds = () => double.books.find(double.terminals[0]!, o)!.operations.length;
    double.failNext('rest');
    const before = await fetch(double.url + REDSYS_PATHS.rest, { method: 'POST', body: JSON.stringify(signedFields(operation(o, '3', '100'))) });
    expect([before.status, refunds()]).toEqual([500, 0]);
    double.failNext('rest', { acted: true });
    const after = await fetch(double.url + REDSYS_PATHS.rest, { method: 'POST', body: JSON.stringify(signedFields(operation(o, '3', '100'))) });
    expect([after.status, refunds()]).toEqual([500, 1]);
    double.loseNext('rest');
    await expect(fetch(double.url + REDSYS_PATHS.rest, { method: 'POST', body: JSON.stringify(signedFields(operation(o, '3', '100'))) })).rejects.toThrow();
    expect(refunds()).toBe(2);
    expect(double.requests.at(-1)).toMatchObject({ service: 'rest', lost: true });
  });

  it('holds an operation before or after carrying it out, refuses one before, and holds notifications until sent', async () => {
    const o = order();
    await paid(o);
    const refunds = () => double.books.find(double.terminals[0]!, o)!.operations.length;
    const refund = () => fetch(double.url + REDSYS_PATHS.rest, { method: 'POST', body: JSON.stringify(signedFields(operation(o, '3', '100'))) });
    const before = double.holdNext('rest', { acted: false });
    const cut = refund().then(() => 'answered', () => 'cut');
    await before.arrived;
    expect(refunds()).toBe(0);
    before.release();
    expect([await cut, refunds()]).toEqual(['cut', 0]);
    const after = double.holdNext('rest', { acted: true });
    const answered = refund();
    await after.arrived;
    expect(refunds()).toBe(1);
    after.release();
    expect((await answered).status).toBe(200);
    double.refuseNext('SIS0057');
    expect(await (await refund()).json()).toEqual({ errorCode: 'SIS0057' });
    expect(refunds()).toBe(1);
    // A notification held: the customer is sent back at once, the merchant told only when sent.
    double.holdNotifications = true;
    const received = receiver.received.length;
    const answer = await decideOnPage(double.url + REDSYS_PATHS.redirect, signedFields(payment(order())), 'approve');
    expect([answer.status, receiver.received.length]).toEqual([303, received]);
    await double.sendNotifications();
    expect(receiver.received.length).toBe(received + 1);
    expect(double.holdNotifications).toBe(false);
  });
});
