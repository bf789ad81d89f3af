// The browser's translator. i18next would cost 16 KB gzip, more than half the budget, so
// the browser gets one language's strings and this function, which must produce exactly
// what the server's i18next produces (test/unit/screen/i18n.test.ts compares them).
import { intlLocale, type Language } from './language';
import type { MessageKey, Strings, TranslationVars, Translator } from './messages';

const PLACEHOLDER = /\{\{\s*([\w.]+)\s*\}\}/g;

function interpolate(template: string, vars: TranslationVars | undefined): string {
  return template.replace(PLACEHOLDER, (_, name: string) => {
    const value = vars?.[name];
    return value === undefined ? '' : String(value);
  });
}

/**
 * `strings`: the page's language, all of it or only the keys the page may ask for; read
 * as it is at each call, so keys added to it later are found.
 */
export function createTranslator(language: Language, strings: Partial<Strings>): Translator {
  const locale = intlLocale(language);
  const table = strings as Record<string, string | undefined>;
  let plurals: Intl.PluralRules | undefined;

  // Same lookup order as i18next: the CLDR plural form first, then the bare key.
  function lookup(key: string, vars: TranslationVars | undefined): string | undefined {
    const count = vars?.count;
    if (typeof count === 'number') {
      plurals ??= new Intl.PluralRules(locale);
      const form = table[`${key}_${plurals.select(count)}`];
      if (form !== undefined) return form;
    }
    return table[key];
  }

  return {
    language,
    locale,
    t(key: MessageKey, vars?: TranslationVars) {
      const template = lookup(key, vars);
      return template === undefined ? key : interpolate(template, vars);
    },
    has(key: string): key is MessageKey {
      return Object.prototype.hasOwnProperty.call(table, key);
    },
  };
}
