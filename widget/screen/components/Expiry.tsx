import { useScreen } from '../context';
import { formatCountdown, formatDateTime } from '../../i18n/format';
import { Icon } from './icons';

/**
 * When the link expires. In the last ten minutes a countdown ticks visibly each second,
 * while screen readers hear a polite update only when the whole minute changes.
 */
export function Expiry() {
  const { model, i18n } = useScreen();
  const countdown = model.showCountdown.value;
  return (
    <div class={countdown ? 'expiry expiry--urgent' : 'expiry'}>
      <Icon name="clock" class="icon--sm" />
      {countdown ? (
        <span class="expiry__text" aria-hidden="true">
          {i18n.t('expiry.timeLeft')}{' '}
          <span class="expiry__clock">
            {formatCountdown(model.remainingMs.value)}
          </span>
        </span>
      ) : (
        <span class="expiry__text">
          {i18n.t('expiry.payBy', {
            date: formatDateTime(model.view.value.expiresAt, i18n.locale, model.timeZone.value),
          })}
        </span>
      )}
      <span class="sr-only" aria-live="polite" aria-atomic="true">
        {countdown ? i18n.t('expiry.minutesLeft', { count: model.minutesLeft.value }) : ''}
      </span>
    </div>
  );
}
