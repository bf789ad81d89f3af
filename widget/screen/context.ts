import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Translator } from '../i18n/messages';
import { formatMoney } from '../i18n/format';
import type { CheckoutModel } from './model';

export interface ScreenContextValue {
  model: CheckoutModel;
  i18n: Translator;
}

export const ScreenContext = createContext<ScreenContextValue | null>(null);

export function useScreen(): ScreenContextValue {
  const value = useContext(ScreenContext);
  if (!value) throw new Error('useScreen outside <CheckoutScreen>');
  return value;
}

/** Money in the view's currency, formatted for the screen's language. */
export function useMoney(): (minor: number) => string {
  const { model, i18n } = useScreen();
  const { currency, exponent } = model.view.value;
  return (minor) => formatMoney(minor, currency, exponent, i18n.locale);
}
