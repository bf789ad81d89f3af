import type { BrandAdjustment } from '../domain/brand';
import { TIME_ZONES } from '../domain/time-zone';
import type { Pricing } from '../store/balance';
import type { Brand } from '../store/branding';
import { roleAtLeast } from '../store/users';
import type { ActiveSession } from './accounts';
import type { DashboardText } from './i18n';
import { type BrandField, type BrandForm, previewQuery } from './brand-form';
import { BrandFormCard } from './brand-form-card';
import { Csrf, renderPage } from './layout';
import type { LogoError } from './logo-routes';
import { PREVIEW_PATH } from './preview-routes';

// Settings: the brand customers see (a form for owners and admins, read-only for viewers)
// with the payment page itself previewed beside it, then what the operator sets (pricing, raw card
// numbers) and the environment's mode, read-only, and links to the team and the audit log.

interface Props {
  text: DashboardText;
  session: ActiveSession;
  brand: Brand;
  /** The form as shown: the saved brand, or what was sent (to correct, or previewed). */
  form: BrandForm;
  /** The brand the preview shows: the saved one, or the form's on "Preview". */
  previewed: BrandForm;
  previewing: boolean;
  errors: BrandField[];
  adjustments: BrandAdjustment[];
  saved: boolean;
  pricing: Pricing;
  /** The currencies the shop holds money in: a fixed fee is shown as money in each. */
  currencies: string[];
  rawCards: boolean;
  /** What was wrong with the logo just sent. */
  logoError?: LogoError;
  /** `logoRemoved`: the logo; `timeZone`: the time zone. */
  done?: 'logoRemoved' | 'timeZone';
  /** The time zone asked for was not one the runtime knows. */
  timeZoneInvalid?: boolean;
}

/** The payment page itself in the previewed brand, framed at a phone's and a desktop's width (preview-routes.ts). */
function PreviewFrames({ text, brand, previewing }: { text: DashboardText; brand: BrandForm; previewing: boolean }) {
  const { t } = text;
  const src = `${PREVIEW_PATH}?${previewQuery(brand)}`;
  return (
    <section class="previews" aria-labelledby="preview-title">
      <h3 id="preview-title">{t(previewing ? 'settings.previewUnsaved' : 'settings.preview')}</h3>
      <p class="hint">{t('settings.previewNote')}</p>
      {/* A picture, not a second page: inert, so no one tabs into its form or hears its landmarks beside the dashboard's. */}
      <div class="preview-frames" inert>
        {(['phone', 'desktop'] as const).map((size) => (
          <div key={size} class={`preview-frame ${size}`}>
            <iframe src={src} title={t(size === 'phone' ? 'settings.previewPhone' : 'settings.previewDesktop')} width={size === 'phone' ? 360 : 1280} height={size === 'phone' ? 740 : 800} data-testid={`preview-${size}`} />
          </div>
        ))}
      </div>
    </section>
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

/**
 * A fixed fee as money. It is charged in each sale's own currency, as that many of its minor
 * units: written in every currency the shop holds money in (€0.30 · $0.30 · ¥30), or, before
 * it holds any, as the minor units themselves.
 */
function fixedFee(text: DashboardText, units: bigint, currencies: string[]): string {
  if (currencies.length === 0) return text.t('settings.fixedUnits', { fixed: units.toString() });
  return currencies.map((c) => text.money(Number(units), c)).join(' · ');
}

function Operator({ text, pricing, currencies, rawCards, mode }: { text: DashboardText; pricing: Pricing; currencies: string[]; rawCards: boolean; mode: string }) {
  const { t } = text;
  const percent = (e2: bigint) => new Intl.NumberFormat(text.lang, { style: 'percent', minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(Number(e2) / 10_000);
  const fee = (p: Pricing['charge']) => t('settings.fee', { percent: percent(p.percentE2), fixed: fixedFee(text, p.fixed, currencies) });
  return (
    <>
      <h2 id="settings-pricing">{t('settings.pricing')}</h2>
      <dl class="facts" aria-labelledby="settings-pricing">
        <dt>{t('settings.chargeFee')}</dt>
        <dd data-testid="charge-fee">{fee(pricing.charge)}</dd>
        <dt>{t('settings.refundFee')}</dt>
        <dd>{fee(pricing.refund)}</dd>
        <dt>{t('settings.disputeFee')}</dt>
        <dd>{fixedFee(text, pricing.disputeFixed, currencies)}</dd>
        <dt>{t('settings.settlement')}</dt>
        <dd>{t('settings.days', { count: pricing.settlementDelayDays })}</dd>
      </dl>
      {currencies.length > 0 && <p class="hint">{t('settings.feeCurrencies')}</p>}
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
      {(p.errors.length > 0 || p.logoError) && (
        <p class="notice error" role="alert">
          {t('settings.invalid')}
        </p>
      )}
      {(p.saved || p.done) && (
        <p class="notice info" role="status">
          {t(p.done === 'logoRemoved' ? 'settings.logoRemoved' : p.done === 'timeZone' ? 'settings.timeZoneSaved' : 'settings.saved')}
        </p>
      )}
      {p.previewing && (
        <p class="notice info" role="status">
          {t('settings.previewing')}
        </p>
      )}
      {p.adjustments.map((a) => (
        <p key={a.field} class="notice info" data-testid="adjusted">
          {t('settings.adjusted', { requested: a.requested, applied: a.applied, contrast: a.contrast })}
        </p>
      ))}
      <h2>{t('settings.brand')}</h2>
      {session.current.environment_pair_id && <p data-testid="shared-in-pair">{t(`settings.sharedInPair.${session.current.environment_mode}`)}</p>}
      <div class="settings-brand">
        <BrandFormCard text={text} csrf={session.csrf} form={p.form} errors={p.errors} editable={editable} hasLogo={p.brand.logo_sha256 !== null} logoError={p.logoError} />
        <PreviewFrames text={text} brand={p.previewed} previewing={p.previewing} />
      </div>
      <h2>{t('settings.timeZoneTitle')}</h2>
      <TimeZoneForm text={text} csrf={session.csrf} current={text.timeZone} editable={editable} invalid={p.timeZoneInvalid ?? false} />
      <Operator text={text} pricing={p.pricing} currencies={p.currencies} rawCards={p.rawCards} mode={session.current.environment_mode} />
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
