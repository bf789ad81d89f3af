import { isSEPACountry, isValidBIC, isValidIBAN } from 'ibantools';
import { unitsToFixed } from '../money';

// The text, ids and amounts of SEPA credit-transfer files (docs/balance.md#payout-files).
// The EPC's SCT rulebook admits only the Latin subset below in every text field; a bank
// may refuse a whole file for one character outside it, so every text we write passes
// through `sepaText` first, which transliterates what it can (é → e, ß → ss) and replaces
// the rest with a space. Names are what banks check against the account holder, so
// transliteration keeps them readable rather than dropping letters.

/** The SEPA character set: a-z A-Z 0-9 / - ? : ( ) . , ' + and space. */
export const SEPA_TEXT = /^[A-Za-z0-9/\-?:().,'+ ]*$/;

/** Letters NFKD does not decompose into a base letter and marks. */
const LETTERS: Record<string, string> = {
  ß: 'ss', Æ: 'AE', æ: 'ae', Ø: 'O', ø: 'o', Œ: 'OE', œ: 'oe', Ł: 'L', ł: 'l', Đ: 'D', đ: 'd',
  Þ: 'TH', þ: 'th', Ð: 'D', ð: 'd', ı: 'i', ſ: 's',
};

/** Punctuation with a close equivalent inside the set; anything else becomes a space. */
const PUNCTUATION: Record<string, string> = {
  '&': '+', '"': "'", '‘': "'", '’': "'", '‚': "'", '`': "'", '´': "'", '“': "'", '”': "'", '„': "'",
  '«': "'", '»': "'", '–': '-', '—': '-', '_': '-', ';': ',', '!': '.', '[': '(', ']': ')', '{': '(', '}': ')',
};

/**
 * `value` in the SEPA character set, spaces collapsed, at most `max` characters: what a
 * file says for a name or a remittance text.
 */
export function sepaText(value: string, max: number): string {
  const out = value
    // NFKD, not NFD: ligatures (ﬁ) and full-width letters (Ａ) become their plain letters too.
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9/\-?:().,'+ ]/g, (c) => LETTERS[c] ?? PUNCTUATION[c] ?? ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return out.slice(0, max).trimEnd();
}

/** Longest MsgId, PmtInfId and EndToEndId (ISO 20022 Max35Text). */
const SEPA_ID_MAX = 35;

/**
 * The SEPA id of one of our UUIDs: its 32 hexadecimal digits without the hyphens. A UUID
 * has 36 characters, one more than an id may; its hyphens always stand at the same four
 * places, so dropping them maps distinct UUIDs to distinct ids and can be undone
 * (`uuidOfSepaId`): an EndToEndId on a statement names the payout it came from.
 */
export function sepaIdOf(uuid: string): string {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(uuid)) throw new RangeError(`not a UUID: ${uuid}`);
  return uuid.replace(/-/g, '').toLowerCase();
}

/** The UUID a SEPA id was made from (`sepaIdOf`), or null for an id that is not one of ours. */
export function uuidOfSepaId(id: string): string | null {
  const hex = id.trim().toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(hex)) return null;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Whether `id` may be a MsgId, PmtInfId or EndToEndId: 1 to 35 characters of the set, not
 * starting with "/" and without "//" (the EPC's rule for references).
 */
export function isSepaId(id: string): boolean {
  return id.length >= 1 && id.length <= SEPA_ID_MAX && SEPA_TEXT.test(id) && !id.startsWith('/') && !id.includes('//');
}

/** The only currency of a SEPA credit transfer, and its minor-unit exponent. */
export const SEPA_CURRENCY = 'EUR';
const EUR_EXPONENT = 2;

/** The EPC's bounds of one transfer, in cents: 0.01 to 999 999 999.99. */
export const SEPA_MIN_CENTS = 1n;
export const SEPA_MAX_CENTS = 99_999_999_999n;

/** Cents → the amount as a file writes it, every decimal place: 123456n → "1234.56". */
export function centsToText(cents: bigint): string {
  return unitsToFixed(cents, EUR_EXPONENT);
}

/**
 * An amount as ISO 20022 writes it ("1234.56", "12.5", "7") → integer minor units at
 * `exponent` places, exactly: no floating point, and no more decimals than the currency
 * has (null for any text that is not such an amount).
 */
export function textToUnits(text: string, exponent: number): bigint | null {
  const m = /^(\d{1,18})(?:\.(\d+))?$/.exec(text.trim());
  if (!m) return null;
  const frac = (m[2] ?? '').replace(/0+$/, '');
  if (frac.length > exponent) return null;
  return BigInt(m[1]!) * 10n ** BigInt(exponent) + BigInt(frac.padEnd(exponent, '0') || '0');
}

/** An IBAN in the electronic format whose country, length, format and mod-97 digits hold. */
/** Whether `iban`'s country is in the SEPA scheme (as ibantools lists them): a bank refuses a credit transfer to any other. */
export const inSepaScheme = (iban: string): boolean => isSEPACountry(iban.slice(0, 2));

export function isIban(iban: string): boolean {
  return /^[A-Z]{2}\d{2}[A-Z0-9]{1,30}$/.test(iban) && isValidIBAN(iban);
}

/** A BIC of 8 or 11 characters (ISO 9362), upper case. */
export function isBic(bic: string): boolean {
  return /^[A-Z0-9]{8}([A-Z0-9]{3})?$/.test(bic) && isValidBIC(bic);
}
