import en from '../../locales/dashboard/en.json' with { type: 'json' };
import es from '../../locales/dashboard/es.json' with { type: 'json' };
import fr from '../../locales/dashboard/fr.json' with { type: 'json' };
import au from '../../locales/dashboard/au.json' with { type: 'json' };
import { htmlLang, intlLocale, type Language } from '../../widget/i18n/language';
import { flatInstance } from '../../widget/i18n/server';
import { exponentOf } from '../domain/currencies';
import { unitsToNumber } from '../domain/money';

// The dashboard's strings (locales/dashboard/*.json), apart from the payment page's so that
// none of them reaches a customer's browser. Rendered on the server only, with i18next.

export type DashboardKey = keyof typeof en;
type DashboardStrings = Record<DashboardKey, string>;

// Each annotation makes the compiler reject a locale that lacks a key of en.json.
const esStrings: DashboardStrings = es;
const frStrings: DashboardStrings = fr;
const auStrings: DashboardStrings = au;
const STRINGS: Record<Language, DashboardStrings> = { en, es: esStrings, fr: frStrings, au: auStrings };

export interface DashboardText {
  language: Language;
  /** The tag for `<html lang>`. */
  lang: string;
  t(key: DashboardKey, vars?: Record<string, string | number>): string;
  /** A moment as this language writes it (en-AU for `au`). */
  dateTime(iso: string): string;
  /** Minor units of `currency` as this language writes money. */
  money(units: number, currency: string): string;
}


const cache = new Map<Language, DashboardText>();

export function dashboardText(language: Language): DashboardText {
  let text = cache.get(language);
  if (text) return text;
  const lng = intlLocale(language);
  const instance = flatInstance(language, STRINGS[language]);
  const format = new Intl.DateTimeFormat(lng, { dateStyle: 'medium', timeStyle: 'medium', timeZone: 'UTC' });
  text = {
    language,
    lang: htmlLang(language),
    t: (key, vars) => instance.t(key, vars ?? {}) as string,
    dateTime: (iso) => `${format.format(new Date(iso))} UTC`,
    money: (units, currency) => {
      const exponent = exponentOf(currency);
      return new Intl.NumberFormat(lng, { style: 'currency', currency, minimumFractionDigits: exponent, maximumFractionDigits: exponent }).format(unitsToNumber(units, exponent));
    },
  };
  cache.set(language, text);
  return text;
}
