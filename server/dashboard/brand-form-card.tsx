import type { BrandField, BrandForm } from './brand-form';
import { ColourField } from './colour-field';
import type { DashboardText } from './i18n';
import { Csrf } from './layout';
import { LOGO_REMOVE_FORM, LogoField } from './logo-form';
import type { LogoError } from './logo-routes';

// The brand's one form: the name and support email, the two colours (colour-field.tsx), the
// logo's file (multipart), "Save" first (the button Enter presses) and "Preview", which
// shows the form's brand in the preview beside it without saving anything.

const TEXT_FIELDS = [
  { name: 'display_name', label: 'settings.displayName', hint: 'settings.displayNameHint', inputmode: 'text', autocomplete: 'organization' },
  { name: 'support_email', label: 'settings.supportEmail', hint: 'settings.supportEmailHint', inputmode: 'email', autocomplete: 'email' },
] as const;

export interface BrandFormProps {
  text: DashboardText;
  csrf: string;
  form: BrandForm;
  errors: BrandField[];
  editable: boolean;
  hasLogo: boolean;
  logoError: LogoError | undefined;
}

export function BrandFormCard(p: BrandFormProps) {
  const { t } = p.text;
  return (
    <>
      <form method="post" action="/dashboard/settings/" enctype="multipart/form-data" class="card" novalidate>
        <Csrf token={p.csrf} />
        {TEXT_FIELDS.map((f) => {
          const invalid = p.errors.includes(f.name);
          return (
            <div key={f.name} class="field">
              <label for={f.name}>{t(f.label)}</label>
              <input id={f.name} name={f.name} type="text" inputmode={f.inputmode} value={p.form[f.name]} autocomplete={f.autocomplete} readonly={!p.editable} aria-invalid={invalid ? 'true' : undefined} aria-describedby={`${f.name}-hint${invalid ? ` ${f.name}-error` : ''}`} />
              <p class="hint" id={`${f.name}-hint`}>
                {t(f.hint)}
              </p>
              {invalid && (
                <p class="field-error" id={`${f.name}-error`} data-testid={`error-${f.name}`}>
                  {t(`settings.error.${f.name}`)}
                </p>
              )}
            </div>
          );
        })}
        <ColourField text={p.text} field="brand_color" form={p.form} invalid={p.errors.includes('brand_color')} editable={p.editable} />
        <ColourField text={p.text} field="accent_color" form={p.form} invalid={p.errors.includes('accent_color')} editable={p.editable} />
        {p.editable && <LogoField text={p.text} hasLogo={p.hasLogo} error={p.logoError} />}
        {p.editable ? (
          <div class="actions">
            <button type="submit" name="intent" value="save" class="primary">
              {t('settings.save')}
            </button>
            <button type="submit" name="intent" value="preview">
              {t('settings.previewButton')}
            </button>
          </div>
        ) : (
          <p class="hint">{t('settings.readOnly')}</p>
        )}
      </form>
      {p.editable && p.hasLogo && (
        <form id={LOGO_REMOVE_FORM} method="post" action="/dashboard/settings/logo/remove/">
          <Csrf token={p.csrf} />
        </form>
      )}
    </>
  );
}
