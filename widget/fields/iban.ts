import { electronicFormatIBAN, validateIBAN, ValidationErrorsIBAN } from 'ibantools';

// IBAN field rules, shared by the server and any screen that collects an IBAN: pure
// functions over ibantools (its country table gives each country's length and format,
// and it checks the ISO 7064 mod-97 digits).

/** Spaces and hyphens dropped, upper case: the electronic format (`ES9121000418450200051332`). */
export function normaliseIban(input: string): string {
  return electronicFormatIBAN(input) ?? '';
}

export type IbanProblem = 'empty' | 'no_iban_country' | 'wrong_length' | 'wrong_format' | 'wrong_checksum';

/** Why an IBAN (already normalised) is not valid, or null when it is. */
export function ibanProblem(iban: string): IbanProblem | null {
  if (!iban) return 'empty';
  const { valid, errorCodes } = validateIBAN(iban);
  if (valid) return null;
  // ibantools lists every failed rule; the first in this order is the one to tell.
  if (!/^[A-Z]{2}/.test(iban) || errorCodes.includes(ValidationErrorsIBAN.NoIBANCountry)) return 'no_iban_country';
  if (errorCodes.includes(ValidationErrorsIBAN.WrongBBANLength)) return 'wrong_length';
  if (errorCodes.includes(ValidationErrorsIBAN.WrongIBANChecksum)) return 'wrong_checksum';
  return 'wrong_format';
}

export const IBAN_PROBLEMS: Record<IbanProblem, string> = {
  empty: 'is empty',
  no_iban_country: 'starts with a country that does not use IBANs',
  wrong_length: "has the wrong length for its country",
  wrong_format: "does not have its country's account number format",
  wrong_checksum: 'has wrong check digits (mod-97)',
};

/** An IBAN as the dashboard and its emails show it: country and last four (`ES…1332`), never the whole account. */
export const maskedIban = (iban: string) => `${iban.slice(0, 2)}…${iban.slice(-4)}`;
