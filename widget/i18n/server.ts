// Server-side translation with i18next. The browser uses ./translate.ts instead; both read
// the same JSON files and must agree to the character, or hydration would show a flicker.
import i18next, { type i18n } from 'i18next';
import en from '../../locales/en.json' with { type: 'json' };
import es from '../../locales/es.json' with { type: 'json' };
import fr from '../../locales/fr.json' with { type: 'json' };
import au from '../../locales/au.json' with { type: 'json' };
import { intlLocale, type Language } from './language';
import type { MessageKey, Messages, Strings, TranslationVars, Translator } from './messages';

// Each annotation makes the compiler reject a locale that lacks a key of en.json.
const esStrings: Messages = es;
const frStrings: Messages = fr;
const auStrings: Messages = au;

const STRINGS: Record<Language, Strings> = { en, es: esStrings, fr: frStrings, au: auStrings };

export function getStrings(language: Language): Strings {
  return STRINGS[language];
}

/**
 * An i18next instance over one language's flat strings, as every text rendered on the
 * server uses it (the payment page, the dashboard, the emails). Keyed by the Intl tag so
 * i18next picks the same plural rules as Intl.PluralRules in the browser (`au` is not a
 * language i18next knows).
 */
export function flatInstance(language: Language, strings: Record<string, string>): i18n {
  const lng = intlLocale(language);
  const instance = i18next.createInstance();
  void instance.init({
    lng,
    fallbackLng: false,
    resources: { [lng]: { translation: strings } },
    // Keys are flat and contain dots; merchant text may contain colons.
    keySeparator: false,
    nsSeparator: false,
    // Preact escapes at render time; escaping here would double-escape. Plain-text emails
    // take the strings as they are.
    interpolation: { escapeValue: false },
    initAsync: false,
  });
  return instance;
}

const createInstance = (language: Language): i18n => flatInstance(language, STRINGS[language]);

const translators = new Map<Language, Translator>();

export function getTranslator(language: Language): Translator {
  let translator = translators.get(language);
  if (!translator) {
    const instance = createInstance(language);
    const table = STRINGS[language];
    const has = (key: string): key is MessageKey => Object.prototype.hasOwnProperty.call(table, key);
    // i18next resolves, interpolates and nests on every call: a page asks for dozens of
    // texts. Without variables a key always gives the same text, so it is asked once.
    const fixed = new Map<MessageKey, string>();
    translator = {
      language,
      locale: intlLocale(language),
      t: (key: MessageKey, vars?: TranslationVars) => {
        if (vars || !has(key)) return instance.t(key, vars ?? {}) as string;
        let text = fixed.get(key);
        if (text === undefined) fixed.set(key, (text = instance.t(key, {}) as string));
        return text;
      },
      has,
    };
    translators.set(language, translator);
  }
  return translator;
}

