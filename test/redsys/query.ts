import { verify } from '../../server/payments/redsys/signature';
import { type Books, CODES, type Operation, type Order, type Terminal } from './books';
import type { LoggedRequest } from './server';

// The double's query service: SOAP `consultaOperaciones` with a `Transaction` message
// (merchant code, terminal, order, transaction type) signed over its `<Version>` element,
// answered with one `<Response>` per operation of that type on the order, escaped inside
// `consultaOperacionesReturn`; XML0024 when there is none. A terminal without the service
// answers an error, as does a bad signature or a message without its fields.

const escapeXml = (text: string) => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);

const envelope = (messages: string) =>
  '<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body>' +
  `<p259:consultaOperacionesResponse xmlns:p259="http://webservices.apl02.redsys.es"><consultaOperacionesReturn>${escapeXml(messages)}</consultaOperacionesReturn>` +
  '</p259:consultaOperacionesResponse></soapenv:Body></soapenv:Envelope>';

const error = (code: string) => envelope(`<Messages><Version Ds_Version="0.0"><Message><ErrorMsg><Ds_ErrorCode>${code}</Ds_ErrorCode></ErrorMsg></Message></Version></Messages>`);

function response(order: Order, op: Operation): string {
  const fields: Record<string, string> = {
    Ds_Order: order.order,
    Ds_MerchantCode: order.terminal.merchantCode,
    Ds_Terminal: order.terminal.terminal,
    Ds_TransactionType: op.type,
    Ds_Amount: String(op.amount),
    Ds_Currency: op.currency,
    Ds_Response: op.response,
    Ds_AuthorisationCode: op.authorisationCode,
    Ds_MerchantData: op.merchantData,
    Ds_State: 'F',
  };
  return `<Response Ds_Version="0.0">${Object.entries(fields).map(([k, v]) => `<${k}>${escapeXml(v)}</${k}>`).join('')}</Response>`;
}

export function queryAnswer(terminals: Terminal[], books: Books, body: string, entry: LoggedRequest): string {
  const messages = /<cadenaXML><!\[CDATA\[([\s\S]*?)\]\]><\/cadenaXML>/.exec(body)?.[1] ?? '';
  const version = /<Version Ds_Version="0\.0">[\s\S]*?<\/Version>/.exec(messages)?.[0] ?? '';
  const field = (name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(version)?.[1] ?? '';
  const q = { merchantCode: field('Ds_MerchantCode'), terminal: field('Ds_Terminal'), order: field('Ds_Order'), type: field('Ds_TransactionType') };
  entry.params = q;
  const signature = /<Signature>([^<]*)<\/Signature>/.exec(messages)?.[1] ?? '';
  const signatureVersion = /<SignatureVersion>([^<]*)<\/SignatureVersion>/.exec(messages)?.[1];
  const refuse = (code: string) => ((entry.errorCode = code), error(code));
  if (!version || !q.merchantCode || !q.terminal || !q.order || !/^[01239]$/.test(q.type)) return refuse(CODES.badParameter);
  const terminal = terminals.find((t) => t.merchantCode === q.merchantCode && Number(t.terminal) === Number(q.terminal));
  if (!terminal) return refuse(CODES.unknownTerminal);
  if (!terminal.queryService) return refuse(CODES.noQueryService);
  if ((signatureVersion !== 'HMAC_SHA256_V1' && signatureVersion !== 'HMAC_SHA512_V2') || !verify(signatureVersion, terminal.secretKey, q.order, version, signature)) return refuse(CODES.signature);
  const order = books.find(terminal, q.order);
  const ops = !order ? [] : q.type === '0' || q.type === '1' ? [order.payment].filter((op) => op.type === q.type) : order.operations.filter((op) => op.type === q.type);
  if (ops.length === 0) return refuse(CODES.noOperation);
  return envelope(`<Messages><Version Ds_Version="0.0"><Message>${ops.map((op) => response(order!, op)).join('')}</Message></Version></Messages>`);
}
