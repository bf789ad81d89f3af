import { LOGO_MAX_BYTES, LOGO_TYPES } from '../domain/logo';
import type { DashboardText } from './i18n';
import { Csrf } from './layout';

// The logo's part of the settings page: a file field (multipart, no script) and a button
// that removes the logo, for owners and admins; what went wrong with the last upload shown
// on the field itself.

export type LogoError = 'missing' | 'too_large' | 'not_allowed';

export function LogoForm({ text, csrf, hasLogo, error }: { text: DashboardText; csrf: string; hasLogo: boolean; error: LogoError | undefined }) {
  const { t } = text;
  const described = `logo-hint${error ? ' logo-error' : ''}`;
  return (
    <div class="card" data-testid="logo-forms">
      <form method="post" action="/dashboard/settings/logo/" enctype="multipart/form-data">
        <Csrf token={csrf} />
        <div class="field">
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
        </div>
        <button type="submit" class="primary">
          {t('settings.logoUpload')}
        </button>
      </form>
      {hasLogo && (
        <form method="post" action="/dashboard/settings/logo/remove/">
          <Csrf token={csrf} />
          <button type="submit">{t('settings.logoRemove')}</button>
        </form>
      )}
    </div>
  );
}
