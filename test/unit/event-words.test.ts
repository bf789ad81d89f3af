import { describe, expect, it } from 'vitest';
import en from '../../locales/dashboard/en.json' with { type: 'json' };
import es from '../../locales/dashboard/es.json' with { type: 'json' };
import fr from '../../locales/dashboard/fr.json' with { type: 'json' };
import au from '../../locales/dashboard/au.json' with { type: 'json' };
import { eventWords } from '../../server/dashboard/event-words';
import { dashboardText } from '../../server/dashboard/i18n';
import { EVENT_TYPES } from '../../server/store/events';

// Every event type the service emits (EVENT_FAMILIES, the one registry) has words in each of
// the dashboard's languages: a type added without them fails here. Read from the files
// themselves, since i18next would quietly fall back to English for a missing key.

const FILES: Record<'en' | 'es' | 'fr' | 'au', Record<string, string>> = { en, es, fr, au };
const PREFIX = 'ev.says.';

describe('events in words', () => {
  it.each(Object.keys(FILES) as (keyof typeof FILES)[])('%s has words for every event type, and only for those', (language) => {
    const strings = FILES[language];
    const text = dashboardText(language);
    const missing = EVENT_TYPES.filter((type) => !strings[`${PREFIX}${type}`]?.trim());
    expect(missing).toEqual([]);
    for (const type of EVENT_TYPES) expect(eventWords(text, type)).toBe(strings[`${PREFIX}${type}`]);
    // No words left for a type the service no longer emits.
    const worded = Object.keys(strings).filter((k) => k.startsWith(PREFIX)).map((k) => k.slice(PREFIX.length));
    expect(worded.sort()).toEqual([...EVENT_TYPES].sort());
  });

  it('translates rather than copies the English words', () => {
    for (const language of ['es', 'fr'] as const) {
      const copied = EVENT_TYPES.filter((type) => FILES[language][`${PREFIX}${type}`] === en[`${PREFIX}${type}` as keyof typeof en]);
      expect(copied, language).toEqual([]);
    }
  });

  it('reads a type it does not know (an event older than a rename) as the type itself', () => {
    expect(eventWords(dashboardText('fr'), 'sale.renamed_long_ago')).toBe('sale.renamed_long_ago');
    expect(eventWords(dashboardText('fr'), 'dispute.created')).toBe('Litige ouvert');
  });
});
