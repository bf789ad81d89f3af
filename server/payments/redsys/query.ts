import { type Answer, checkAnswer, RedsysUnknownOutcome, readAnswer } from './answers';
import type { RedsysContext } from './context';
import { sign } from './signature';

// The query service (`consultaOperaciones`, SOAP), which the bank enables per terminal:
// what Redsys did on one order, for one transaction type. It is what makes an unknown
// outcome provable: a payment whose notification never came, a refund or confirmation whose
// answer was lost. A terminal without it says so at connection time (probeQueryService),
// and then an unknown operation goes to `attention` (actions.ts), while a payment on
// Redsys's page waits for its notification (lookup.ts).
//
// The request is the `Transaction` message of Redsys's SOAP query guide as read, signed
// like a payment (the key derived from the order) over the `<Version>` element. The answer
// is a SOAP envelope whose `consultaOperacionesReturn` holds escaped XML with one
// `<Response>` per operation (flat `Ds_` elements) or an `<ErrorMsg>`; XML0024 means "no
// operation". The XML is flat and known, so it is read with patterns rather than a parser,
// and every value then goes through the same zod schema and checks as a REST answer.

const NO_OPERATION = 'XML0024';

const escapeXml = (value: string) => value.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
const unescapeXml = (value: string) =>
  value.replace(/&(lt|gt|amp|quot|apos|#\d+);/g, (_, e: string) => ({ lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" })[e] ?? String.fromCharCode(Number(e.slice(1))));

function envelope(ctx: RedsysContext, order: string, type: string): string {
  const { merchant_code, terminal, signature_version, secret_key } = ctx.settings;
  const version =
    `<Version Ds_Version="0.0"><Message><Transaction><Ds_MerchantCode>${escapeXml(merchant_code)}</Ds_MerchantCode><Ds_Terminal>${escapeXml(terminal)}</Ds_Terminal>` +
    `<Ds_Order>${escapeXml(order)}</Ds_Order><Ds_TransactionType>${escapeXml(type)}</Ds_TransactionType></Transaction></Message></Version>`;
  const messages = `<Messages>${version}<Signature>${sign(signature_version, secret_key, order, version)}</Signature><SignatureVersion>${signature_version}</SignatureVersion></Messages>`;
  return (
    '<?xml version="1.0"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:web="http://webservices.apl02.redsys.es">' +
    `<soapenv:Header/><soapenv:Body><web:consultaOperaciones><cadenaXML><![CDATA[${messages}]]></cadenaXML></web:consultaOperaciones></soapenv:Body></soapenv:Envelope>`
  );
}

/** The flat `Ds_` elements of one XML fragment. */
function fields(xml: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [, name, value] of xml.matchAll(/<(Ds_[A-Za-z0-9_]+)>([^<]*)<\/\1>/g)) out[name!] = unescapeXml(value!);
  return out;
}

/** What the service answered: the operations, or its error code. */
export function readQueryAnswer(body: string): { operations: Record<string, string>[] } | { errorCode: string } {
  const inner = /<consultaOperacionesReturn[^>]*>([\s\S]*)<\/consultaOperacionesReturn>/.exec(body)?.[1];
  const xml = inner === undefined ? body : unescapeXml(inner);
  const error = /<ErrorMsg>([\s\S]*?)<\/ErrorMsg>/.exec(xml);
  if (error) return { errorCode: fields(error[1]!).Ds_ErrorCode ?? 'unknown' };
  const responses = [...xml.matchAll(/<Response\b[^>]*>([\s\S]*?)<\/Response>/g)].map((m) => fields(m[1]!));
  if (responses.length === 0 && !/<Messages\b/.test(xml)) throw new Error("the query service's answer holds neither operations nor an error");
  return { operations: responses };
}

async function post(ctx: RedsysContext, order: string, type: string, signal: AbortSignal): Promise<string> {
  const response = await fetch(ctx.settings.urls.query, {
    method: 'POST',
    headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: 'consultaOperaciones' },
    body: envelope(ctx, order, type),
    signal: AbortSignal.any([signal, AbortSignal.timeout(ctx.settings.timeoutMs)]),
  });
  if (!response.ok) throw new Error(`Redsys's query service answered HTTP ${response.status}`);
  return response.text();
}

/** Every operation of `type` on `order`, each checked to be of this terminal, order and type. Throws when the service cannot answer. */
export async function queryOperations(ctx: RedsysContext, order: string, type: string, signal: AbortSignal): Promise<Answer[]> {
  if (!ctx.settings.query_service) throw new RedsysUnknownOutcome(`the terminal has no query service: what Redsys did on order ${order} cannot be asked`);
  const read = readQueryAnswer(await post(ctx, order, type, signal));
  if ('errorCode' in read) {
    if (read.errorCode === NO_OPERATION) return [];
    throw new Error(`Redsys's query service refused the query (${read.errorCode})`);
  }
  return read.operations.map((fields) => {
    const answer = readAnswer(fields, 'an operation of the query service');
    checkAnswer(answer, { merchantCode: ctx.settings.merchant_code, terminal: ctx.settings.terminal, order, types: [type] });
    return answer;
  });
}

/**
 * Whether the bank enabled the query service on this terminal, for the processors API to
 * store as `query_service` when connecting: a query for an order that cannot exist answers
 * "no operation" (XML0024) where the service works; any other error code means it is not
 * available. A network failure throws: connecting should then be tried again.
 */
export async function probeQueryService(ctx: RedsysContext, signal: AbortSignal): Promise<{ available: boolean; errorCode?: string }> {
  const read = readQueryAnswer(await post(ctx, '0000probe', '0', signal));
  if ('errorCode' in read) return read.errorCode === NO_OPERATION ? { available: true } : { available: false, errorCode: read.errorCode };
  return { available: true };
}
