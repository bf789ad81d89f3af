import { describe, expect, it } from 'vitest';
import { dashboardText, pricePerPeriod } from '../../server/dashboard/i18n';

// A plan's price and period as the dashboard writes it: the plural form each language's
// rules pick for the count, never "every 1 × Month".

describe('pricePerPeriod', () => {
  it('says one period without a number and several with it, in every language', () => {
    const cases: [Parameters<typeof dashboardText>[0], string, string][] = [
      ['en', '€7.25 every month', '€7.25 every 3 months'],
      ['au', '€7.25 every month', '€7.25 every 3 months'],
      ['es', '€7.25 cada mes', '€7.25 cada 3 meses'],
      ['fr', '€7.25 par mois', '€7.25 tous les 3 mois'],
    ];
    for (const [language, one, three] of cases) {
      const text = dashboardText(language);
      expect(pricePerPeriod(text, '€7.25', 'month', 1)).toBe(one);
      expect(pricePerPeriod(text, '€7.25', 'month', 3)).toBe(three);
    }
    expect(pricePerPeriod(dashboardText('en'), '€1.00', 'day', 2)).toBe('€1.00 every 2 days');
    expect(pricePerPeriod(dashboardText('fr'), '1,00 €', 'week', 2)).toBe('1,00 € toutes les 2 semaines');
  });
});
