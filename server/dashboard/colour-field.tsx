import { bandContrast, buttonContrast, HEX_COLOR } from '../domain/contrast';
import { type BrandForm, type ColorField, PAGE_ACCENT, pickerName, shownName } from './brand-form';
import type { DashboardText } from './i18n';

// A brand colour on the settings form: its hex text and a colour picker (which wins when
// moved: brand-form.ts), and beside them, in words, what the payment page does with the
// colour shown: for the brand colour, the pay button's text (dark or light, chosen before
// the colour is touched), its contrast, and what happens when neither text reaches 4.5:1;
// for the accent, the band's contrast with the card it tops.

const LABELS = { brand_color: ['settings.brandColor', 'settings.brandColorPicker'], accent_color: ['settings.accentColor', 'settings.accentColorPicker'] } as const;

function ContrastWords({ text, field, value }: { text: DashboardText; field: ColorField; value: string }) {
  const { t } = text;
  const ratio = (n: number) => new Intl.NumberFormat(text.lang, { maximumFractionDigits: 2 }).format(n);
  const id = `${field}-contrast`;
  if (!HEX_COLOR.test(value)) return <p class="hint" id={id} data-testid={id}>{t(field === 'brand_color' ? 'settings.contrast.none' : 'settings.band.none')}</p>;
  const color = value.toLowerCase();
  if (field === 'accent_color') {
    const band = bandContrast(color);
    return <p class="hint" id={id} data-testid={id}>{t(band >= 3 ? 'settings.band.visible' : 'settings.band.faint', { color, ratio: ratio(band) })}</p>;
  }
  const button = buttonContrast(color);
  if (button.darkenedTo) {
    return <p class="field-warning" id={id} data-testid={id}>{t('settings.contrast.darkened', { color, applied: button.darkenedTo, ratio: ratio(button.ratio) })}</p>;
  }
  return <p class="hint" id={id} data-testid={id}>{t(button.text === 'dark' ? 'settings.contrast.dark' : 'settings.contrast.light', { color, ratio: ratio(button.ratio) })}</p>;
}

export function ColourField({ text, field, form, invalid, editable }: { text: DashboardText; field: ColorField; form: BrandForm; invalid: boolean; editable: boolean }) {
  const { t } = text;
  const value = form[field];
  // A picker always holds a colour: the one typed when it is one, else the page's own.
  const shown = HEX_COLOR.test(value.trim()) ? value.trim().toLowerCase() : PAGE_ACCENT;
  const [label, pickerLabel] = LABELS[field];
  const described = `${field}-hint ${invalid ? `${field}-error` : `${field}-contrast`}`;
  return (
    <div class="field">
      <label for={field}>{t(label)}</label>
      <div class="colour-input">
        <input id={field} name={field} type="text" inputmode="text" value={value} autocomplete="off" spellcheck={false} readonly={!editable} aria-invalid={invalid ? 'true' : undefined} aria-describedby={described} />
        <input id={pickerName(field)} name={pickerName(field)} type="color" value={shown} disabled={!editable} aria-label={t(pickerLabel)} aria-describedby={`${field}-hint`} />
        <input type="hidden" name={shownName(field)} value={shown} />
      </div>
      <p class="hint" id={`${field}-hint`}>
        {t('settings.colorHint')}
      </p>
      {invalid ? (
        <p class="field-error" id={`${field}-error`} data-testid={`error-${field}`}>
          {t(`settings.error.${field}`)}
        </p>
      ) : (
        <ContrastWords text={text} field={field} value={value.trim()} />
      )}
    </div>
  );
}
