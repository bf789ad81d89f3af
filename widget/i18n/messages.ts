// Translation keys are derived from the base locale, so a typo in a key is a compile error
// and every other locale must be a complete value of the same shape.
import type en from '../../locales/en.json';
import type { Language } from './language';

export type Messages = typeof en;
/** A key as stored in the JSON files, plural forms included (`…_one`, `…_other`). */
export type StoredKey = keyof Messages & string;

type PluralSuffix = 'zero' | 'one' | 'two' | 'few' | 'many' | 'other';
type WithoutPluralSuffix<K> = K extends `${infer Base}_${PluralSuffix}` ? Base : K;
/** A key as passed to `t`: plural forms are chosen by the `count` variable. */
export type MessageKey = WithoutPluralSuffix<StoredKey>;

/** One language's complete set of strings, as sent to the browser. */
export type Strings = Record<StoredKey, string>;
export type TranslationVars = Record<string, string | number>;

export interface Translator {
  readonly language: Language;
  /** The BCP 47 tag used for Intl formatting. */
  readonly locale: string;
  t(key: MessageKey, vars?: TranslationVars): string;
  /** Narrows keys that arrive as data (gateway field labels, server error keys). */
  has(key: string): key is MessageKey;
}
