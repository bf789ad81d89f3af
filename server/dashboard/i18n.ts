import en from '../../locales/dashboard/en.json' with { type: 'json' };
import es from '../../locales/dashboard/es.json' with { type: 'json' };
import fr from '../../locales/dashboard/fr.json' with { type: 'json' };
import au from '../../locales/dashboard/au.json' with { type: 'json' };
import { htmlLang, intlLocale, type Language } from '../../widget/i18n/language';
import { flatInstance } from '../../widget/i18n/server';
import { exponentOf } from '../domain/currencies';
import { DEFAULT_TIME_ZONE } from '../domain/time-zone';
import { unitsToNumber } from '../domain/money';

// The dashboard's strings (locales/dashboard/*.json), apart from the payment page's so that
// none of them reaches a customer's browser. Rendered on the server only, with i18next.

export type DashboardKey = keyof typeof en;
type DashboardStrings = Record<DashboardKey, string>;
/** A key with plural forms (`…_one`, `…_other`), named without its suffix: i18next picks the form by `count`. */
export type PluralKey = { [K in DashboardKey]: K extends `${infer Stem}_one` ? Stem : never }[DashboardKey];

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
  /** The plural form of `key` for `vars.count`. */
  plural(key: PluralKey, vars: Record<string, string | number> & { count: number }): string;
  /** The shop's time zone (IANA), in which `dateTime` writes and the dashboard's days are cut. */
  timeZone: string;
  /** A moment as this language writes it (en-AU for `au`), in `timeZone`, named. */
  dateTime(iso: string): string;
  /** Minor units of `currency` as this language writes money. */
  money(units: number, currency: string): string;
}


const cache = new Map<string, DashboardText>();

/** The dashboard's words in `language`, its times in the shop's `timeZone` (server/domain/time-zone.ts). */
export function dashboardText(language: Language, timeZone: string = DEFAULT_TIME_ZONE): DashboardText {
  const key = `${language} ${timeZone}`;
  let text = cache.get(key);
  if (text) return text;
  const lng = intlLocale(language);
  const instance = flatInstance(language, STRINGS[language]);
  // To the minute (a list's time then fits one line), the zone named as the language writes it
  // ("UTC", "GMT+1", "CET"); the API's timestamps carry the milliseconds.
  const format = new Intl.DateTimeFormat(lng, { year: 'numeric', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZoneName: 'short', timeZone });
  const moneyFormats = new Map<string, Intl.NumberFormat>();
  text = {
    language,
    lang: htmlLang(language),
    timeZone,
    t: (key, vars) => instance.t(key, vars ?? {}) as string,
    plural: (key, vars) => instance.t(key, vars) as string,
    dateTime: (iso) => format.format(new Date(iso)),
    money: (units, currency) => {
      const exponent = exponentOf(currency);
      // One formatter per currency, kept with the text: making one costs far more than using
      // it, and the home's table and chart format some 200 amounts (docs/performance-changelog.md).
      let money = moneyFormats.get(currency);
      if (!money) moneyFormats.set(currency, (money = new Intl.NumberFormat(lng, { style: 'currency', currency, minimumFractionDigits: exponent, maximumFractionDigits: exponent })));
      return money.format(unitsToNumber(units, exponent));
    },
  };
  cache.set(key, text);
  return text;
}

/** A plan's period unit. */
export type Interval = 'day' | 'week' | 'month' | 'year';

/** A price and how often it is charged: "€7.25 every month", "€7.25 every 3 months". */
export const pricePerPeriod = (text: DashboardText, amount: string, interval: Interval, count: number): string =>
  text.plural(`cat.every.${interval}`, { amount, count });
