import { z } from 'zod';
import { SIGNATURE_VERSIONS } from './signature';

// What the Redsys connector is built from: one virtual terminal (merchant code and terminal
// number, Redsys's "FUC" and terminal) and its signing key. The processors API (a later
// slice) stores these per environment, sealed; tests pass them directly. Field names are
// the processors API's (issue 46), snake_case; the test double's URL and the timeout are ours.

/** Redsys's published test terminal: its key is public, so it must never reach a live environment. */
export const PUBLIC_TEST_MERCHANT = '999008881';
export const PUBLIC_TEST_KEY = 'sq7HjrUOBfKmC576ILgskD5srU870gJ7';

/** Redsys's hosts: the test one for sandboxes, production for live environments. */
export const REDSYS_TEST_URL = 'https://sis-t.redsys.es:25443';
export const REDSYS_LIVE_URL = 'https://sis.redsys.es';

/** The paths Redsys documents, appended to the host (or to a test double's URL). */
export const REDSYS_PATHS = {
  /** The payment page the customer's browser is posted to. */
  redirect: '/sis/realizarPago',
  /** Operations sent server to server: confirmations, cancellations, refunds, charges of stored cards. */
  rest: '/sis/rest/trataPeticionREST',
  /** The query service (SOAP, `consultaOperaciones`), which the bank enables per terminal. */
  query: '/apl02/services/SerClsWSConsulta',
} as const;

// 24 bytes are exactly 32 base64 characters, without padding: the pattern says it all, so
// the OpenAPI document states the whole rule.
const base64Key = z.string().regex(/^[A-Za-z0-9+/]{32}$/, 'the key Redsys gives the terminal: 24 bytes in base64, 32 characters');

/** What names a terminal and signs for it: the processors API takes these as the connector does. */
export const terminalFields = {
  merchant_code: z.string().regex(/^\d{1,9}$/, "the terminal's merchant code (FUC): up to 9 digits"),
  terminal: z.string().regex(/^\d{1,3}$/, 'the terminal number: up to 3 digits'),
  secret_key: base64Key,
};

export const redsysSettingsSchema = z
  .object({
    ...terminalFields,
    signature_version: z.enum(SIGNATURE_VERSIONS),
    /** A live environment: Redsys's production host, and never the published test terminal. */
    live: z.boolean().default(false),
    /** Where Redsys is: its test or production host unless a test double stands in (REDSYS_URL). */
    apiUrl: z.url({ protocol: /^https?$/ }).optional(),
    /** Whether the bank enabled the query service on this terminal: found when connecting (probeQueryService). */
    query_service: z.boolean().default(false),
    /** Where Redsys posts its asynchronous notification (DS_MERCHANT_MERCHANTURL). */
    notificationUrl: z.url({ protocol: /^https?$/ }).optional(),
    /** Without `notificationUrl`: its path, on the origin of the call's return route (the service's PUBLIC_URL or the page's own origin). */
    notificationPath: z.string().startsWith('/').optional(),
    /** The currencies the terminal takes, ISO 4217 letters (a terminal usually takes one: EUR). */
    currencies: z.array(z.string().regex(/^[A-Z]{3}$/)).nonempty().default(['EUR']),
    /** The longest one request may take, whatever the caller's signal allows. */
    timeoutMs: z.number().int().positive().default(30_000),
  })
  .superRefine((s, ctx) => {
    // The published key signs for anyone: a live terminal with it would take forged notifications.
    if (s.live && (s.merchant_code === PUBLIC_TEST_MERCHANT || s.secret_key === PUBLIC_TEST_KEY)) {
      ctx.addIssue({ code: 'custom', path: [s.merchant_code === PUBLIC_TEST_MERCHANT ? 'merchant_code' : 'secret_key'], message: "Redsys's published test terminal (merchant 999008881) cannot be connected to a live environment" });
    }
  })
  .transform((s) => {
    const host = s.live ? REDSYS_LIVE_URL : REDSYS_TEST_URL;
    const base = (s.apiUrl ?? host).replace(/\/+$/, '');
    // `origin`: where requests go; `redsysOrigin`: Redsys's own host, the only one a gateway declares (a double's is `replacedOrigin`).
    return { ...s, urls: { redirect: base + REDSYS_PATHS.redirect, rest: base + REDSYS_PATHS.rest, query: base + REDSYS_PATHS.query }, origin: new URL(base).origin, redsysOrigin: new URL(host).origin };
  });

export type RedsysSettingsInput = z.input<typeof redsysSettingsSchema>;
export type RedsysSettings = z.output<typeof redsysSettingsSchema>;
