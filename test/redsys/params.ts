import { decodeParameters, encodeParameters, sign, verify } from '../../server/payments/redsys/signature';
import { type Books, CODES, type Order, type Operation, RedsysError, type SignatureVersion, type Terminal } from './books';

// The double's reading of what a merchant sends (the three signed fields, the parameters
// inside) and its signing of what it answers, strict where Redsys is: an unknown
// parameter, a missing or malformed one, an unknown terminal, a wrong signature, a
// signature version Redsys does not know, a Bizum payment that is not an immediate euro
// payment, a stored-card charge without the fields Redsys requires for it.

const PAGE = ['AMOUNT', 'ORDER', 'MERCHANTCODE', 'CURRENCY', 'TRANSACTIONTYPE', 'TERMINAL', 'MERCHANTURL', 'URLOK', 'URLKO', 'MERCHANTDATA', 'PAYMETHODS',
  'CONSUMERLANGUAGE', 'PRODUCTDESCRIPTION', 'TITULAR', 'MERCHANTNAME', 'IDENTIFIER', 'COF_INI', 'COF_TYPE'];
const REST = ['AMOUNT', 'ORDER', 'MERCHANTCODE', 'CURRENCY', 'TRANSACTIONTYPE', 'TERMINAL', 'MERCHANTDATA', 'IDENTIFIER', 'COF_INI', 'COF_TYPE', 'COF_TXNID',
  'EXCEP_SCA', 'DIRECTPAYMENT'];
const ALLOWED = { page: new Set(PAGE.map((p) => `DS_MERCHANT_${p}`)), rest: new Set(REST.map((p) => `DS_MERCHANT_${p}`)) };

const REQUIRED: Record<string, RegExp> = {
  DS_MERCHANT_AMOUNT: /^(0|[1-9]\d{0,11})$/,
  DS_MERCHANT_ORDER: /^\d{4}[A-Za-z0-9]{0,8}$/,
  DS_MERCHANT_MERCHANTCODE: /^\d{1,9}$/,
  DS_MERCHANT_CURRENCY: /^\d{3}$/,
  DS_MERCHANT_TRANSACTIONTYPE: /^[01239]$/,
  DS_MERCHANT_TERMINAL: /^\d{1,3}$/,
};

export interface Signed {
  terminal: Terminal;
  version: SignatureVersion;
  params: Record<string, string>;
}

/** Reads and checks the three fields of a request to `service`; throws the refusal Redsys answers. */
export function readSigned(terminals: Terminal[], fields: Record<string, unknown>, service: 'page' | 'rest'): Signed {
  const { Ds_SignatureVersion: version, Ds_MerchantParameters: encoded, Ds_Signature: signature } = fields;
  if (version !== 'HMAC_SHA256_V1' && version !== 'HMAC_SHA512_V2') throw new RedsysError(CODES.badParameter, `unknown Ds_SignatureVersion ${String(version)}`);
  if (typeof encoded !== 'string' || typeof signature !== 'string') throw new RedsysError(CODES.badParameter, 'Ds_MerchantParameters and Ds_Signature are required');
  const decoded = decodeParameters(encoded);
  if (!decoded) throw new RedsysError(CODES.badParameter, 'Ds_MerchantParameters is not base64 JSON');
  const params: Record<string, string> = {};
  // Redsys takes the names in any case; the double keeps them upper case.
  for (const [name, value] of Object.entries(decoded)) params[name.toUpperCase()] = String(value);
  for (const name of Object.keys(params)) if (!ALLOWED[service].has(name)) throw new RedsysError(CODES.unknownParameter, `unknown parameter ${name}`);
  for (const [name, pattern] of Object.entries(REQUIRED)) if (!pattern.test(params[name] ?? '')) throw new RedsysError(CODES.badParameter, `${name} missing or malformed`);
  const terminal = terminals.find((t) => t.merchantCode === params.DS_MERCHANT_MERCHANTCODE && Number(t.terminal) === Number(params.DS_MERCHANT_TERMINAL));
  if (!terminal) throw new RedsysError(CODES.unknownTerminal, 'no such merchant code and terminal');
  if (!verify(version, terminal.secretKey, params.DS_MERCHANT_ORDER!, encoded, signature)) throw new RedsysError(CODES.signature, 'the signature does not verify under the terminal key');
  if (params.DS_MERCHANT_AMOUNT === '0' && !(service === 'page' && validatesCard(params))) throw new RedsysError(CODES.badParameter, 'an amount of 0 is only a card validation on the page that stores the card');
  return { terminal, version, params };
}

/** A validation of amount 0: a card payment on the page that asks to store the card as the first of its credential-on-file uses. */
const validatesCard = (p: Record<string, string>) => p.DS_MERCHANT_TRANSACTIONTYPE === '0' && p.DS_MERCHANT_PAYMETHODS !== 'z' && p.DS_MERCHANT_IDENTIFIER === 'REQUIRED' && p.DS_MERCHANT_COF_INI === 'S';

/** A payment page request: Bizum ('z') takes an immediate euro payment only, and stores no card; a card is stored only when asked for (REQUIRED). */
export function checkPagePayment(s: Signed): void {
  const p = s.params;
  if (p.DS_MERCHANT_TRANSACTIONTYPE !== '0' && p.DS_MERCHANT_TRANSACTIONTYPE !== '1') throw new RedsysError(CODES.badParameter, 'the payment page takes payments (0) and pre-authorisations (1)');
  if (p.DS_MERCHANT_PAYMETHODS === 'z' && (p.DS_MERCHANT_CURRENCY !== '978' || p.DS_MERCHANT_TRANSACTIONTYPE !== '0')) throw new RedsysError(CODES.badParameter, 'Bizum takes immediate payments in euros only');
  if (p.DS_MERCHANT_PAYMETHODS === 'z' && (p.DS_MERCHANT_IDENTIFIER || p.DS_MERCHANT_COF_INI)) throw new RedsysError(CODES.badParameter, 'Bizum stores no card');
  // The double's page asks for a new card only (no one-click payment with an identifier it issued).
  if (p.DS_MERCHANT_IDENTIFIER !== undefined && p.DS_MERCHANT_IDENTIFIER !== 'REQUIRED') throw new RedsysError(CODES.storedCardFields, 'DS_MERCHANT_IDENTIFIER on the page is REQUIRED (store the card)');
  if (p.DS_MERCHANT_COF_INI === 'S' && (p.DS_MERCHANT_IDENTIFIER !== 'REQUIRED' || !p.DS_MERCHANT_COF_TYPE)) throw new RedsysError(CODES.storedCardFields, 'a first credential-on-file use (COF_INI S) stores the card (IDENTIFIER REQUIRED) and names its COF_TYPE');
}

/** A stored-card (MIT) charge: every field Redsys requires, the card this terminal stored, its network transaction id. */
export function checkStoredCharge(books: Books, s: Signed): { identifier: string } {
  const p = s.params;
  const required = { DS_MERCHANT_COF_INI: 'N', DS_MERCHANT_EXCEP_SCA: 'MIT', DS_MERCHANT_DIRECTPAYMENT: 'true' };
  for (const [name, value] of Object.entries(required)) if (p[name] !== value) throw new RedsysError(CODES.storedCardFields, `a stored-card charge needs ${name}=${value}`);
  if (!p.DS_MERCHANT_COF_TYPE || !p.DS_MERCHANT_COF_TXNID) throw new RedsysError(CODES.storedCardFields, 'a stored-card charge needs DS_MERCHANT_COF_TYPE and DS_MERCHANT_COF_TXNID');
  const card = books.cards.get(p.DS_MERCHANT_IDENTIFIER ?? '');
  if (!card || card.terminal !== s.terminal) throw new RedsysError(CODES.storedCardFields, 'DS_MERCHANT_IDENTIFIER names no card stored on this terminal');
  if (card.cofTxnid !== p.DS_MERCHANT_COF_TXNID) throw new RedsysError(CODES.storedCardFields, 'DS_MERCHANT_COF_TXNID is not the first use of this card');
  return { identifier: p.DS_MERCHANT_IDENTIFIER! };
}

/** The Ds_ parameters Redsys answers about an operation (a payment, or one on a payment). */
export function answerParams(order: Order, op: Operation, extra: Record<string, string> = {}): Record<string, string> {
  const now = op.at;
  const pad = (n: number) => String(n).padStart(2, '0');
  return {
    Ds_Date: encodeURIComponent(`${pad(now.getUTCDate())}/${pad(now.getUTCMonth() + 1)}/${now.getUTCFullYear()}`),
    Ds_Hour: encodeURIComponent(`${pad(now.getUTCHours())}:${pad(now.getUTCMinutes())}`),
    Ds_SecurePayment: op.type === '0' || op.type === '1' ? '1' : '0',
    Ds_Card_Number: order.card,
    Ds_Amount: String(op.amount),
    Ds_Currency: op.currency,
    Ds_Order: order.order,
    Ds_MerchantCode: order.terminal.merchantCode,
    // Redsys answers the terminal with three digits.
    Ds_Terminal: order.terminal.terminal.padStart(3, '0'),
    Ds_Response: op.response,
    Ds_MerchantData: encodeURIComponent(op.merchantData),
    Ds_TransactionType: op.type,
    Ds_AuthorisationCode: op.response === '0000' || op.response === '0900' || op.response === '0400' ? op.authorisationCode : '',
    Ds_Card_Brand: '1',
    ...(order.stored && op === order.payment ? { Ds_Merchant_Identifier: order.stored.identifier, Ds_Merchant_Cof_Txnid: order.stored.cofTxnid } : {}),
    ...extra,
  };
}

/** Signs answer parameters as Redsys does: notifications' signatures in base64url, REST answers' in standard base64 (V2: base64url always). */
export function signAnswer(terminal: Terminal, params: Record<string, string>, alphabet: 'base64' | 'base64url') {
  const encoded = encodeParameters(params);
  const signature = sign(terminal.signatureVersion, terminal.secretKey, params.Ds_Order!, encoded);
  const inAlphabet = terminal.signatureVersion === 'HMAC_SHA256_V1' && alphabet === 'base64url' ? signature.replaceAll('+', '-').replaceAll('/', '_') : signature;
  return { Ds_SignatureVersion: terminal.signatureVersion, Ds_MerchantParameters: encoded, Ds_Signature: inAlphabet };
}
