// Locale-aware formatting shared by the server render and the browser. Everything takes the
// Intl locale tag explicitly so both sides format identically.

/**
 * Integer minor units → exact decimal string ("-1234.56"), never through a float, so
 * amounts beyond 2^53 / 100 or with exponent 3 print exactly.
 */
export function minorToDecimal(minor: number | bigint, exponent: number): string {
  const value = BigInt(minor);
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(exponent + 1, '0');
  const whole = digits.slice(0, digits.length - exponent);
  const fraction = digits.slice(digits.length - exponent);
  return `${negative ? '-' : ''}${whole}${exponent > 0 ? `.${fraction}` : ''}`;
}

const numberFormats = new Map<string, Intl.NumberFormat>();

function cachedFormat(key: string, create: () => Intl.NumberFormat): Intl.NumberFormat {
  let format = numberFormats.get(key);
  if (!format) numberFormats.set(key, (format = create()));
  return format;
}

// Intl accepts decimal strings at runtime (ES2023 Intl.NumberFormat v3); the DOM lib's
// signature only admits number | bigint.
type DecimalString = `${number}`;
function formatDecimal(format: Intl.NumberFormat, decimal: string): string {
  return format.format(decimal as DecimalString as unknown as number);
}

export function formatMoney(minor: number, currency: string, exponent: number, locale: string): string {
  const format = cachedFormat(`${locale}|${currency}|${exponent}`, () =>
    new Intl.NumberFormat(locale, {
      style: 'currency',
      currency,
      // The currency table decides the digits, not Intl's own idea of the currency.
      minimumFractionDigits: exponent,
      maximumFractionDigits: exponent,
    }),
  );
  return formatDecimal(format, minorToDecimal(minor, exponent));
}

/** Quantities arrive as decimal strings ("2", "1.5") and are printed as given, localised. */
export function formatQuantity(quantity: string, locale: string): string {
  if (!/^-?\d+(\.\d+)?$/.test(quantity)) return quantity;
  const format = cachedFormat(`${locale}|qty`, () =>
    new Intl.NumberFormat(locale, { maximumFractionDigits: 20 }),
  );
  return formatDecimal(format, quantity);
}

const dateTimeFormats = new Map<string, Intl.DateTimeFormat>();

/**
 * Date and time of an ISO instant. The server does not know the customer's zone, so it
 * renders UTC with the zone shown; the browser switches to the local zone after hydration.
 */
export function formatDateTime(iso: string, locale: string, timeZone: string | undefined): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  // Building a DateTimeFormat (zone names included) costs far more than formatting with one.
  const key = `${locale}|${timeZone ?? ''}`;
  let format = dateTimeFormats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat(locale, {
      year: 'numeric',
      month: 'long',
      day: 'numeric',
      hour: 'numeric',
      minute: '2-digit',
      timeZoneName: 'short',
      timeZone,
    });
    dateTimeFormats.set(key, format);
  }
  return format.format(date);
}

/** The day of an ISO instant ("9 December 2026"), in the same zone rules as formatDateTime. */
export function formatDate(iso: string, locale: string, timeZone: string | undefined): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(locale, { year: 'numeric', month: 'long', day: 'numeric', timeZone }).format(date);
}

/** "9:05" for a countdown; whole seconds, rounded up so it reads 0:00 only at the end. */
export function formatCountdown(remainingMs: number): string {
  const total = Math.max(0, Math.ceil(remainingMs / 1000));
  const minutes = Math.floor(total / 60);
  const seconds = total % 60;
  return `${minutes}:${String(seconds).padStart(2, '0')}`;
}

/** The time of day of an ISO instant ("10:42 CET"), in the same zone rules as formatDateTime. */
export function formatTime(iso: string, locale: string, timeZone: string | undefined): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(locale, { hour: 'numeric', minute: '2-digit', timeZoneName: 'short', timeZone }).format(date);
}

/**
 * A reference a person can read out and type: the last eight hex digits of a UUIDv7 (its
 * random part), "9F3A-71C2". It finds the payment among a shop's own, not among all.
 */
export function shortReference(id: string): string {
  const hex = id.replace(/-/g, '').slice(-8).toUpperCase();
  return `${hex.slice(0, 4)}-${hex.slice(4)}`;
}
