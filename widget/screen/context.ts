// The screen's model and translator, for any component of the tree without passing them
// down. No component of the screen holds state of its own (no hooks), so every render,
// on the server and in the browser, starts at <CheckoutScreen>, which sets them first;
// rendering is synchronous, so what its children read is that screen's.
import type { Translator } from '../i18n/messages';
import { formatMoney } from '../i18n/format';
import type { ScreenParts } from './components/parts';
import type { CheckoutModel } from './model';

export interface ScreenContextValue {
  model: CheckoutModel;
  i18n: Translator;
  /** The parts rendered by the server only (components/parts.tsx). */
  parts: ScreenParts;
}

let current: ScreenContextValue | null = null;

/** Called by <CheckoutScreen> as it renders. */
export function provideScreen(value: ScreenContextValue): void {
  current = value;
}

export function useScreen(): ScreenContextValue {
  if (!current) throw new Error('useScreen outside <CheckoutScreen>');
  return current;
}

/** Money in the view's currency, formatted for the screen's language. */
export function useMoney(): (minor: number) => string {
  const { model, i18n } = useScreen();
  const { currency, exponent } = model.view.value;
  return (minor) => formatMoney(minor, currency, exponent, i18n.locale);
}
