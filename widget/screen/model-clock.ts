// The screen's clock once the browser runs it: the countdown of the last ten minutes, the
// expiry, and the end of the wait after too many declines, each on a timer of its own.
import { batch } from '@preact/signals-core';
import { expire } from './model-actions';
import { COUNTDOWN_FROM_MS, type ModelState } from './model-state';

// setTimeout overflows above 2^31 - 1 ms (about 24.8 days) and fires at once.
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Returns `start`, called once the browser has hydrated: from here on the clock runs,
 * dates show in the customer's zone, and markup may differ from the server's. `start`
 * returns a stop function.
 */
export function modelClock(m: ModelState): (options?: { timeZone?: string }) => () => void {
  const { timers } = m.deps;
  let timer: unknown = null;
  let unlockTimer: unknown = null;

  // Wakes when the wait after too many declines is over, so Pay comes back by itself.
  function scheduleUnlock(): void {
    if (unlockTimer !== null) timers.clearTimeout(unlockTimer);
    unlockTimer = null;
    const at = m.view.value.retryAt ? Date.parse(m.view.value.retryAt) : NaN;
    if (!(at > m.now.value)) return;
    unlockTimer = timers.setTimeout(() => {
      unlockTimer = null;
      m.tick();
      scheduleUnlock();
    }, Math.min(Math.max(at - m.now.value, 50), MAX_TIMER_MS));
  }

  // Wakes once a second only in the last ten minutes; before that, once, when they begin.
  function schedule(): void {
    if (timer !== null) timers.clearTimeout(timer);
    timer = null;
    if (!m.payable.value) return;
    const remaining = m.remainingMs.value;
    const delay = remaining <= COUNTDOWN_FROM_MS ? 1000 - (m.now.value % 1000 || 0) : remaining - COUNTDOWN_FROM_MS;
    timer = timers.setTimeout(() => {
      timer = null;
      m.tick();
      if (m.remainingMs.value <= 0) expire(m);
      schedule();
    }, Math.min(Math.max(delay, 50), MAX_TIMER_MS));
  }

  return (options = {}) => {
    batch(() => {
      m.interactive.value = true;
      m.timeZone.value = options.timeZone;
      m.tick();
    });
    const unsubscribe = m.view.subscribe(() => {
      schedule();
      scheduleUnlock();
    });
    if (m.remainingMs.value <= 0) expire(m);
    return () => {
      unsubscribe();
      for (const handle of [timer, unlockTimer]) if (handle !== null) timers.clearTimeout(handle);
      timer = unlockTimer = null;
    };
  };
}
