import en from '../../locales/mail/en.json' with { type: 'json' };
import es from '../../locales/mail/es.json' with { type: 'json' };
import fr from '../../locales/mail/fr.json' with { type: 'json' };
import au from '../../locales/mail/au.json' with { type: 'json' };
import { intlLocale, type Language } from '../../widget/i18n/language';
import { flatInstance, getTranslator } from '../../widget/i18n/server';
import type { MessageKey } from '../../widget/i18n/messages';
import { formatDate, formatDateTime, formatMoney } from '../../widget/i18n/format';
import { exponentOf } from '../domain/currencies';

// The emails' strings (locales/mail/*.json), apart from the payment page's so that none of
// them reaches a customer's browser. The plan's terms ("€9.99 every month") are the
// payment page's own strings, so the email states them exactly as the page did.

type Stored = keyof typeof en;
/** A key as asked for: plural forms (`_one`, `_other`) are chosen by `count`. */
export type MailKey = Stored extends infer K ? (K extends `${infer B}_${'one' | 'other'}` ? B : K) : never;
type MailStrings = Record<Stored, string>;

// Each annotation makes the compiler reject a locale that lacks a key of en.json.
const esStrings: MailStrings = es;
const frStrings: MailStrings = fr;
const auStrings: MailStrings = au;
const STRINGS: Record<Language, MailStrings> = { en, es: esStrings, fr: frStrings, au: auStrings };

export interface MailText {
  language: Language;
  t(key: MailKey, vars?: Record<string, string | number>): string;
  /** One of the payment page's strings (the plan's terms). */
  page(key: MessageKey, vars?: Record<string, string | number>): string;
  money(units: number, currency: string): string;
  /** The day of an instant, in UTC (the day the schedule counts in). */
  date(iso: string): string;
  /** A moment to the minute in the shop's time zone, the zone named (the team's emails). */
  dateTime(iso: string, timeZone: string): string;
}

const cache = new Map<Language, MailText>();

export function mailText(language: Language): MailText {
  let text = cache.get(language);
  if (text) return text;
  const lng = intlLocale(language);
  const instance = flatInstance(language, STRINGS[language]);
  const page = getTranslator(language);
  text = {
    language,
    t: (key, vars) => instance.t(key, vars ?? {}) as string,
    page: (key, vars) => page.t(key, vars),
    money: (units, currency) => formatMoney(units, currency, exponentOf(currency), lng),
    date: (iso) => formatDate(iso, lng, 'UTC'),
    dateTime: (iso, timeZone) => formatDateTime(iso, lng, timeZone),
  };
  cache.set(language, text);
  return text;
}
