import { LOGO_MAX_BYTES, LOGO_TYPES } from '../domain/logo';
import type { DashboardText } from './i18n';
import type { LogoError } from './logo-routes';

// The logo's part of the settings form: a file field (the form is multipart, no script),
// what went wrong with the last file shown on the field itself, and "Remove logo", a button
// of its own small form (`form` attribute: forms do not nest) placed beside the field.

export const LOGO_REMOVE_FORM = 'logo-remove';

export function LogoField({ text, hasLogo, error }: { text: DashboardText; hasLogo: boolean; error: LogoError | undefined }) {
  const { t } = text;
  const described = `logo-hint${error ? ' logo-error' : ''}`;
  return (
    <div class="field" data-testid="logo-field">
      <label for="logo">{t('settings.logoFile')}</label>
      <input id="logo" name="logo" type="file" accept={LOGO_TYPES.join(',')} aria-invalid={error ? 'true' : undefined} aria-describedby={described} />
      <p class="hint" id="logo-hint">
        {t('settings.logoHint', { kib: LOGO_MAX_BYTES / 1024 })}
      </p>
      {error && (
        <p class="field-error" id="logo-error" data-testid="error-logo">
          {t(`settings.logoError.${error}`, { kib: LOGO_MAX_BYTES / 1024 })}
        </p>
      )}
      {hasLogo && (
        <button type="submit" form={LOGO_REMOVE_FORM}>
          {t('settings.logoRemove')}
        </button>
      )}
    </div>
  );
}
