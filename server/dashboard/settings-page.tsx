import { logoPath } from '../checkout/brand';
import type { BrandAdjustment } from '../domain/brand';
import { readableBrandColor } from '../domain/contrast';
import { TIME_ZONES } from '../domain/time-zone';
import type { Pricing } from '../store/balance';
import type { Brand } from '../store/branding';
import { roleAtLeast } from '../store/users';
import type { ActiveSession } from './accounts';
import type { DashboardKey, DashboardText } from './i18n';
import { Csrf, renderPage } from './layout';
import { type LogoError, LogoForm } from './logo-form';

// Settings: the brand customers see (a form for owners and admins, read-only for viewers)
// with a sketch of the payment page in it, then what the operator sets (pricing, raw card
// numbers) and the environment's mode, read-only, and links to the team and the audit log.

export type BrandForm = Record<'display_name' | 'support_email' | 'brand_color' | 'accent_color', string>;

interface Props {
  text: DashboardText;
  session: ActiveSession;
  brand: Brand;
  form: BrandForm;
  errors: (keyof BrandForm)[];
  adjustments: BrandAdjustment[];
  saved: boolean;
  pricing: Pricing;
  rawCards: boolean;
  /** What was wrong with the logo just sent. */
  logoError?: LogoError;
  /** `saved`: the brand; `logo` / `logoRemoved`: the logo; `timeZone`: the time zone. */
  done?: 'logo' | 'logoRemoved' | 'timeZone';
  /** The time zone asked for was not one the runtime knows. */
  timeZoneInvalid?: boolean;
}

/** The payment page's own colours when the brand sets none (widget/screen/styles.css, light theme). */
const PAGE_ACCENT = '#1d4ed8';

const FIELDS: { name: keyof BrandForm; label: DashboardKey; hint: DashboardKey; inputmode: 'text' | 'email'; autocomplete?: string }[] = [
  { name: 'display_name', label: 'settings.displayName', hint: 'settings.displayNameHint', inputmode: 'text', autocomplete: 'organization' },
  { name: 'support_email', label: 'settings.supportEmail', hint: 'settings.supportEmailHint', inputmode: 'email', autocomplete: 'email' },
  { name: 'brand_color', label: 'settings.brandColor', hint: 'settings.colorHint', inputmode: 'text' },
  { name: 'accent_color', label: 'settings.accentColor', hint: 'settings.colorHint', inputmode: 'text' },
];

/** A sketch of the payment page in the saved brand: SVG paint attributes, which the CSP's `style-src` does not govern. */
function Preview({ text, brand, environmentId }: { text: DashboardText; brand: Brand; environmentId: string }) {
  const { t } = text;
  const name = brand.display_name ?? brand.name;
  const color = brand.brand_color ?? PAGE_ACCENT;
  const accent = brand.accent_color ?? color;
  // The text the payment page writes on the button: white, or dark on a light colour.
  const onButton = readableBrandColor(color).onButton;
  return (
    <figure class="preview">
      <figcaption>{t('settings.preview')}</figcaption>
      <svg viewBox="0 0 320 200" role="img" aria-label={t('settings.previewLabel', { name, color, accent })} data-testid="brand-preview">
        <rect x="0" y="0" width="320" height="200" rx="10" fill="#ffffff" stroke="#c9c9d2" />
        <rect x="0" y="0" width="320" height="10" fill={accent} data-testid="preview-accent" />
        {brand.logo_sha256 && <image href={logoPath(environmentId, brand.logo_sha256)} x="20" y="22" height="28" width="120" preserveAspectRatio="xMinYMid meet" />}
        <text x="20" y={brand.logo_sha256 ? 72 : 46} font-size="18" font-weight="700" fill="#1a1a1f">
          {name}
        </text>
        <rect x="20" y="96" width="280" height="26" rx="4" fill="#f3f4f7" stroke="#c9c9d2" />
        <rect x="20" y="140" width="280" height="40" rx="6" fill={color} data-testid="preview-button" />
        <text x="160" y="166" font-size="16" font-weight="600" fill={onButton} text-anchor="middle" data-testid="preview-button-text">
          {t('settings.previewPay')}
        </text>
      </svg>
    </figure>
  );
}

function BrandFormCard({ p, editable }: { p: Props; editable: boolean }) {
  const { t } = p.text;
  return (
    <form method="post" action="/dashboard/settings/" class="card" novalidate>
      <Csrf token={p.session.csrf} />
      {FIELDS.map((f) => {
        const invalid = p.errors.includes(f.name);
        const described = `${f.name}-hint${invalid ? ` ${f.name}-error` : ''}`;
        return (
          <div key={f.name} class="field">
            <label for={f.name}>{t(f.label)}</label>
            <input id={f.name} name={f.name} type="text" inputmode={f.inputmode} value={p.form[f.name]} autocomplete={f.autocomplete ?? 'off'} readonly={!editable} aria-invalid={invalid ? 'true' : undefined} aria-describedby={described} />
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
      {editable ? (
        <button type="submit" class="primary">
          {t('settings.save')}
        </button>
      ) : (
        <p class="hint">{t('settings.readOnly')}</p>
      )}
    </form>
  );
}

/** The shop's time zone: the dashboard's times, days and exports are in it. */
function TimeZoneForm({ text, csrf, current, editable, invalid }: { text: DashboardText; csrf: string; current: string; editable: boolean; invalid: boolean }) {
  const { t } = text;
  return (
    <form method="post" action="/dashboard/settings/time-zone/" class="card" novalidate>
      <Csrf token={csrf} />
      <div class="field">
        <label for="time_zone">{t('settings.timeZone')}</label>
        <select id="time_zone" name="time_zone" disabled={!editable} aria-invalid={invalid ? 'true' : undefined} aria-describedby={`time_zone-hint${invalid ? ' time_zone-error' : ''}`}>
          {TIME_ZONES.map((zone) => (
            <option key={zone} value={zone} selected={zone === current}>
              {zone.replaceAll('_', ' ')}
            </option>
          ))}
        </select>
        <p class="hint" id="time_zone-hint">
          {t('settings.timeZoneHint')}
        </p>
        {invalid && (
          <p class="field-error" id="time_zone-error" data-testid="error-time_zone">
            {t('settings.error.time_zone')}
          </p>
        )}
      </div>
      {editable && (
        <button type="submit" class="primary">
          {t('settings.timeZoneSet')}
        </button>
      )}
    </form>
  );
}

function Operator({ text, pricing, rawCards, mode }: { text: DashboardText; pricing: Pricing; rawCards: boolean; mode: string }) {
  const { t } = text;
  const percent = (e2: bigint) => new Intl.NumberFormat(text.lang, { style: 'percent', minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(Number(e2) / 10_000);
  const fee = (p: Pricing['charge']) => t('settings.fee', { percent: percent(p.percentE2), fixed: p.fixed.toString() });
  return (
    <>
      <h2 id="settings-pricing">{t('settings.pricing')}</h2>
      <dl class="facts" aria-labelledby="settings-pricing">
        <dt>{t('settings.chargeFee')}</dt>
        <dd data-testid="charge-fee">{fee(pricing.charge)}</dd>
        <dt>{t('settings.refundFee')}</dt>
        <dd>{fee(pricing.refund)}</dd>
        <dt>{t('settings.disputeFee')}</dt>
        <dd>{t('settings.fixed', { fixed: pricing.disputeFixed.toString() })}</dd>
        <dt>{t('settings.settlement')}</dt>
        <dd>{t('settings.days', { count: pricing.settlementDelayDays })}</dd>
      </dl>
      <p class="hint">
        {t('settings.byOperator')} <code>npm run keys -- pricing</code>
      </p>
      <h2 id="settings-environment">{t('settings.environment')}</h2>
      <dl class="facts" aria-labelledby="settings-environment">
        <dt>{t('settings.mode')}</dt>
        <dd data-testid="mode">{t(mode === 'live' ? 'env.mode.live' : 'env.mode.sandbox')}</dd>
        <dt>{t('settings.rawCards')}</dt>
        <dd data-testid="raw-cards">{t(rawCards ? 'settings.on' : 'settings.off')}</dd>
      </dl>
      <p class="hint">
        {t('settings.byOperator')} <code>npm run keys -- settings</code>
      </p>
    </>
  );
}

export function settingsPage(p: Props): string {
  const { text, session } = p;
  const { t } = text;
  const editable = roleAtLeast(session.current.role, 'admin');
  return renderPage(
    { text, session, title: t('settings.title'), active: 'settings' },
    <>
      {p.errors.length > 0 && (
        <p class="notice error" role="alert">
          {t('settings.invalid')}
        </p>
      )}
      {p.logoError && (
        <p class="notice error" role="alert">
          {t('settings.logoInvalid')}
        </p>
      )}
      {(p.saved || p.done) && (
        <p class="notice info" role="status">
          {t(p.done === 'logo' ? 'settings.logoSaved' : p.done === 'logoRemoved' ? 'settings.logoRemoved' : p.done === 'timeZone' ? 'settings.timeZoneSaved' : 'settings.saved')}
        </p>
      )}
      {p.adjustments.map((a) => (
        <p key={a.field} class="notice info" data-testid="adjusted">
          {t('settings.adjusted', { requested: a.requested, applied: a.applied, contrast: a.contrast })}
        </p>
      ))}
      <h2>{t('settings.brand')}</h2>
      <div class="settings-brand">
        <BrandFormCard p={p} editable={editable} />
        <Preview text={text} brand={p.brand} environmentId={session.current.environment_id} />
      </div>
      <h3>{t('settings.logoTitle')}</h3>
      {editable && <LogoForm text={text} csrf={session.csrf} hasLogo={p.brand.logo_sha256 !== null} error={p.logoError} />}
      <p class="hint">{t('settings.logo')}</p>
      <h2>{t('settings.timeZoneTitle')}</h2>
      <TimeZoneForm text={text} csrf={session.csrf} current={text.timeZone} editable={editable} invalid={p.timeZoneInvalid ?? false} />
      <Operator text={text} pricing={p.pricing} rawCards={p.rawCards} mode={session.current.environment_mode} />
      {roleAtLeast(session.current.role, 'owner') && (
        <>
          <h2>{t('settings.people')}</h2>
          <ul>
            <li>
              <a href="/dashboard/team/">{t('nav.team')}</a>
            </li>
            <li>
              <a href="/dashboard/audit/">{t('nav.audit')}</a>
            </li>
          </ul>
        </>
      )}
    </>,
  );
}
