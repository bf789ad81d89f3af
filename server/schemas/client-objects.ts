// The codes alone: the entry point would register the country names in every language, unused.
import countries from 'i18n-iso-countries/index.js';
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';
import { z } from 'zod';
import { IBAN_PROBLEMS, ibanProblem, normaliseIban } from '../../widget/fields/iban';
import { NO_ANGLE_BRACKETS } from '../../widget/fields/text';
import { CLIENT_TYPES, DOCUMENT_STATUSES, DOCUMENT_TYPES } from '../domain/compliance';
import { fieldError } from '../http/problem';
import type { ClientValues, IbanValues } from '../store/clients';
import { dateTime, exact, httpUrl, livemode, nonBlank, objectId, text, timestamps } from './fields';

// The three client objects as the API reads and writes them: the zod schemas (which the
// OpenAPI document is made from), the rules across fields, and API → row mapping. Row →
// API is in server/present/client.ts, shared with the events.

/** Text shown in back offices: a single line (fields.ts), and no markup either. */
const plain = (max: number) => text(max).regex(NO_ANGLE_BRACKETS, 'may not contain < or >');

/** The document lists the codes (one shared component), from the same data the check used. */
const country = z
  .enum(Object.keys(countries.getAlpha2Codes()).sort() as [string, ...string[]], { error: 'is not an ISO 3166-1 alpha-2 country code in capitals' })
  .meta({ id: 'CountryCode', description: 'ISO 3166-1 alpha-2 country code in capitals' });

const calendarDate = z.iso.date({ error: 'must be a real calendar date, YYYY-MM-DD' });

const ID_TYPES = ['passport', 'national_id', 'tax_id', 'residence_permit', 'driving_licence', 'other'] as const;

const optional = <T extends z.ZodType>(schema: T) => schema.nullable().default(null);

export const clientFields = z
  .strictObject({
    name: nonBlank(plain(255)).describe('Full name of the person, or legal name of the company'),
    client_id: optional(nonBlank(plain(255))).describe('Your external identifier; unique in your environment when given (a repeat is a 409)'),
    client_type: optional(z.enum(CLIENT_TYPES)).describe('`individual` or `company`; a client without one is reviewed as an individual'),
    id_type: optional(z.enum(ID_TYPES)).describe('Kind of the identity document whose number is `id_number`'),
    id_country: country.describe('ISO 3166-1 alpha-2 code of the country that issued `id_number`'),
    id_number: nonBlank(plain(64)).describe('Number of the identity document (or tax id)'),
    id_expiration_date: optional(calendarDate).describe('When the identity document expires, YYYY-MM-DD'),
    email: optional(z.email().max(254)).describe('E-mail address'),
    phone: optional(text(32)).describe(
      'Phone number; international (+…) or national to `country`; stored and returned in E.164',
    ),
    web: optional(httpUrl).describe('Web site, an absolute http(s) URL'),
    incorporation_date: optional(calendarDate).describe('Companies only: date of incorporation, YYYY-MM-DD, not in the future'),
    birth_date: optional(calendarDate).describe('Date of birth, YYYY-MM-DD, not in the future'),
    birth_country: optional(country).describe('ISO 3166-1 alpha-2 country of birth'),
    nationality: optional(country).describe('ISO 3166-1 alpha-2 country of nationality'),
    street: optional(plain(255)).describe('Street and number of the address'),
    postal_code: optional(plain(16)).describe('Postal code of the address'),
    city: optional(plain(128)).describe('City of the address'),
    province: optional(plain(128)).describe('Province, state or region of the address'),
    country: optional(country).describe('ISO 3166-1 alpha-2 country of the address'),
    notify_url: optional(httpUrl).describe('Where client.* and document.* events of this client are sent'),
    enabled: z
      .boolean()
      .default(true)
      .describe("Your switch; independent of `enabled_by_compliance`. `false`: no request moves money into or out of the client's wallets, nor pays out to its IBANs (409)"),
  })
  .meta({ id: 'Client', description: 'A client: a person or a company' });
export type ClientFields = z.output<typeof clientFields>;

export const clientOut = z
  .object({
    id: objectId,
    livemode,
    enabled_by_compliance: z
      .boolean()
      .describe('Set by the compliance review: an accepted identity document (and, for a company, an accepted company registration)'),
    ...clientFields.shape,
    phone: z.string().nullable().describe('Phone number in E.164 (`+34600123456`)'),
    ...timestamps,
  })
  .meta({ id: 'Client', description: 'A client: a person or a company, with its compliance state' });

/** Rules across fields and against today; the phone comes back in E.164. */
export function clientRow(v: ClientFields, today: Date): ClientValues {
  const day = today.toISOString().slice(0, 10);
  if (v.birth_date && v.birth_date > day) throw fieldError('birth_date', 'is in the future');
  if (v.incorporation_date && v.incorporation_date > day) throw fieldError('incorporation_date', 'is in the future');
  if (v.incorporation_date && v.client_type !== 'company') {
    throw fieldError('incorporation_date', 'is only for clients of client_type company');
  }
  let phone: string | null = null;
  if (v.phone) {
    const parsed = parsePhoneNumberFromString(v.phone, (v.country ?? undefined) as CountryCode | undefined);
    if (!parsed?.isValid()) throw fieldError('phone', 'is not a valid phone number (international +…, or national to `country`)');
    phone = parsed.number;
  }
  return { ...v, phone };
}

// IBANs

/**
 * Whose account an IBAN is, as the bank knows it: a SEPA payout file names the creditor with
 * it (banks check it against the account), in the SEPA character set, so it must keep a
 * letter or digit once written in it (docs/balance.md#payout-files).
 */
export const accountHolderName = nonBlank(plain(70))
  // A pattern, not a check in code, so the document states the rule (the fuzz suite holds
  // every refusal to it). The payout-files job refuses the rare name that still writes as
  // nothing in the SEPA set (ƀ alone), leaving the payout waiting with the reason.
  .regex(/[A-Za-z0-9\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u024F]/, 'must hold a Latin letter or digit (a bank file writes names in the SEPA character set)')
  .describe('Whose account it is, as the bank knows it (at most 70 characters): the creditor name of a payout by SEPA file, required for live payouts when they are paid by file');

export const ibanFields = z
  .strictObject({
    iban_id: optional(nonBlank(plain(255))).describe('Your external identifier; unique per client when given (a repeat is a 409)'),
    iban: exact(64)
      .describe('The IBAN; spaces and lower case accepted; stored and returned in the electronic format (no spaces, capitals)')
      .transform(normaliseIban)
      .superRefine((iban, ctx) => {
        const problem = ibanProblem(iban);
        if (problem) ctx.addIssue({ code: 'custom', message: IBAN_PROBLEMS[problem] });
      }),
    notify_url: optional(httpUrl).describe('Where iban.* events of this IBAN are sent'),
    enabled: z.boolean().default(true).describe('Your switch; independent of `enabled_by_compliance`'),
    account_holder_name: optional(accountHolderName).describe('Whose account it is, as the bank knows it (at most 70 characters): the creditor name of a payout by SEPA file, required for live payouts paid by file; null: not given'),
  })
  .meta({ id: 'Iban', description: 'A bank account (IBAN) of a client' });
export type IbanFields = z.output<typeof ibanFields>;

export const ibanOut = z
  .object({
    id: objectId,
    livemode,
    client: z.uuid().describe('`id` of the client'),
    enabled_by_compliance: z.boolean().describe('True while its client is enabled by compliance'),
    iban_id: z.string().nullable().describe('Your external identifier'),
    iban: z.string().describe('The IBAN, electronic format'),
    notify_url: z.string().nullable().describe('Where iban.* events of this IBAN are sent'),
    enabled: z.boolean().describe('Your switch; independent of `enabled_by_compliance`'),
    account_holder_name: z.string().nullable().describe('Whose account it is, as the bank knows it; null: not given'),
    ...timestamps,
  })
  .meta({ id: 'Iban', description: 'A bank account (IBAN) of a client' });

export const ibanRow = (v: IbanFields): IbanValues => ({ ...v });

// Documents

export const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;

/** Each accepted content type with the file name endings it may have. */
export const DOCUMENT_FORMATS = {
  'application/pdf': ['.pdf'],
  'image/png': ['.png'],
  'image/jpeg': ['.jpg', '.jpeg'],
  'image/webp': ['.webp'],
} as const;
type ContentType = keyof typeof DOCUMENT_FORMATS;
const CONTENT_TYPES = Object.keys(DOCUMENT_FORMATS) as [ContentType, ...ContentType[]];

/** An uploaded file: a client's document, a dispute's evidence (its bytes checked by document-bytes.ts `checkedBytes`). */
export const documentFile = z.strictObject({
  name: nonBlank(plain(255))
    .regex(/^[^/\\]*$/, 'may not contain / or \\')
    .describe('File name, ending as its content type does (.pdf, .png, .jpg/.jpeg, .webp)'),
  content_type: z.enum(CONTENT_TYPES).describe('Checked against the bytes themselves'),
  data: z.base64().min(1).describe('The file, base64; at most 10 MiB decoded (a larger one is a 413)'),
});

export const documentCreate = z
  .strictObject({
    type: z.enum(DOCUMENT_TYPES).describe('What the document is'),
    file: documentFile.describe('The file content; the document returned never includes the bytes'),
  })
  .meta({ id: 'Document', description: 'An identity or company document of a client, to upload' });

export const documentOut = z
  .object({
    id: objectId,
    livemode,
    client: z.uuid().describe('`id` of the client'),
    type: z.enum(DOCUMENT_TYPES).describe('What the document is'),
    status: z
      .enum(DOCUMENT_STATUSES)
      .describe('pending until the compliance review runs; then accepted or rejected (sandbox: a file name starting with "reject" is rejected)'),
    status_reason: z.string().nullable().describe('Why a document was rejected'),
    file: z.object({
      name: z.string().describe('File name, as uploaded'),
      content_type: z.enum(CONTENT_TYPES).describe('Media type, checked against the bytes'),
      size: z.number().int().describe('Size of the file in bytes'),
      sha256: z.string().describe('Hex SHA-256 of the bytes'),
    }).describe('What is kept of the file; its bytes come from …/file/'),
    reviewed: dateTime.nullable().describe('When the compliance review decided (ISO 8601, UTC)'),
    ...timestamps,
  })
  .meta({ id: 'Document', description: 'An identity or company document of a client, without its bytes' });
