import { z } from 'zod';
import { type Answer, RedsysMismatch, readAnswer, same } from './answers';
import type { RedsysContext } from './context';
import { decodeParameters, encodeParameters, sign, verify } from './signature';

// The two server-to-server services: REST operations (`trataPeticionREST`, JSON) and the
// query service (SOAP `consultaOperaciones`). Every request runs under the caller's
// AbortSignal and the settings' timeout; nothing is retried here: a retry is the caller's
// decision, and for Redsys's operations a blind retry would act twice. An HTTP error, a
// broken connection or a timeout throws: the outcome is unknown.

/** A REST answer: Redsys's refusal (`errorCode`, nothing done), or the signed, checked parameters. */
export type RestAnswer = { errorCode: string } | { answer: Answer };

const refusalBody = z.looseObject({ errorCode: z.string().min(1) });
const signedBody = z.looseObject({ Ds_SignatureVersion: z.string(), Ds_MerchantParameters: z.string(), Ds_Signature: z.string() });

const within = (ctx: RedsysContext, signal: AbortSignal) => AbortSignal.any([signal, AbortSignal.timeout(ctx.settings.timeoutMs)]);

/** Signs `parameters` for their order as Redsys's three fields. */
export function signed(ctx: RedsysContext, parameters: Record<string, string>) {
  const encoded = encodeParameters(parameters);
  const { signature_version, secret_key } = ctx.settings;
  return { Ds_SignatureVersion: signature_version, Ds_MerchantParameters: encoded, Ds_Signature: sign(signature_version, secret_key, parameters.DS_MERCHANT_ORDER!, encoded) };
}

/** Reads three signed fields as Redsys sends them: the configured version only (no downgrade), a good signature for the order inside. */
export function verified(ctx: RedsysContext, fields: { Ds_SignatureVersion?: unknown; Ds_MerchantParameters?: unknown; Ds_Signature?: unknown }): Record<string, unknown> | null {
  const { Ds_SignatureVersion: version, Ds_MerchantParameters: parameters, Ds_Signature: signature } = fields;
  if (version !== ctx.settings.signature_version || typeof parameters !== 'string' || typeof signature !== 'string') return null;
  const decoded = decodeParameters(parameters);
  const order = decoded?.Ds_Order;
  if (!decoded || typeof order !== 'string') return null;
  return verify(ctx.settings.signature_version, ctx.settings.secret_key, order, parameters, signature) ? decoded : null;
}

export async function rest(ctx: RedsysContext, parameters: Record<string, string>, signal: AbortSignal): Promise<RestAnswer> {
  const response = await fetch(ctx.settings.urls.rest, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(signed(ctx, parameters)),
    signal: within(ctx, signal),
  });
  if (!response.ok) throw new Error(`Redsys's REST service answered HTTP ${response.status}: the outcome is unknown`);
  const json: unknown = await response.json();
  const refusal = refusalBody.safeParse(json);
  if (refusal.success) return { errorCode: refusal.data.errorCode };
  const body = signedBody.safeParse(json);
  if (!body.success) throw new RedsysMismatch('the REST answer', 'errorCode, or the three signed fields', z.prettifyError(body.error));
  const decoded = verified(ctx, body.data);
  // An answer we cannot verify is not Redsys's as far as we know: not believed, not "not acted" either.
  if (!decoded) throw new RedsysMismatch('Ds_Signature of the REST answer', 'a valid signature of the configured version', body.data.Ds_SignatureVersion);
  const answer = readAnswer(decoded, 'the REST answer');
  same('Ds_Order', parameters.DS_MERCHANT_ORDER, answer.Ds_Order);
  return { answer };
}
