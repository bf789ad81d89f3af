/** The languages of the payment screen: `au` is English as written in Australia. */
export const LANGUAGES = ['en', 'es', 'fr', 'au'] as const;
export type Language = (typeof LANGUAGES)[number];

/** BCP 47 tags for Intl: `au` is not a language code, it stands for English as written in Australia. */
const INTL_LOCALES: Record<Language, string> = { en: 'en', es: 'es-ES', fr: 'fr-FR', au: 'en-AU' };
const HTML_LANGS: Record<Language, string> = { en: 'en', es: 'es', fr: 'fr', au: 'en-AU' };

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

export function intlLocale(language: Language): string {
  return INTL_LOCALES[language];
}

export function htmlLang(language: Language): string {
  return HTML_LANGS[language];
}

/** Maps one Accept-Language range to ours; `en-AU` must be tested before the generic `en-*`. */
function languageOfRange(range: string): Language | null {
  const tag = range.toLowerCase();
  if (tag === 'en-au' || tag.startsWith('en-au-')) return 'au';
  const primary = tag.split('-')[0];
  if (primary === 'en' || primary === 'es' || primary === 'fr') return primary;
  return null;
}

interface WeightedRange {
  range: string;
  q: number;
  order: number;
}

function parseAcceptLanguage(header: string): WeightedRange[] {
  const ranges: WeightedRange[] = [];
  header.split(',').forEach((part, order) => {
    const [rawRange, ...params] = part.trim().split(';');
    const range = rawRange?.trim();
    if (!range) return;
    let q = 1;
    for (const param of params) {
      const [name, value] = param.trim().split('=');
      if (name?.trim().toLowerCase() === 'q') {
        q = Number(value);
        // A malformed weight must not promote a range above well-formed ones.
        if (!Number.isFinite(q) || q < 0 || q > 1) q = 0;
      }
    }
    if (q > 0) ranges.push({ range, q, order });
  });
  // Stable on equal weights: the client's own order breaks ties (RFC 9110 §12.5.4).
  return ranges.sort((a, b) => b.q - a.q || a.order - b.order);
}

/**
 * The screen's language: the transaction's own when it is one of ours, else the best
 * Accept-Language match, else English.
 */
export function resolveLanguage(
  transactionLanguage: string | null,
  acceptLanguage: string | undefined,
): Language {
  if (isLanguage(transactionLanguage)) return transactionLanguage;
  if (acceptLanguage) {
    for (const { range } of parseAcceptLanguage(acceptLanguage)) {
      const language = languageOfRange(range);
      if (language) return language;
    }
  }
  return 'en';
}
