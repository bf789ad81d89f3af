import type { Translator } from '../i18n/messages';
import type { GatewayOption } from './view';

/**
 * A gateway as the customer reads it: the locale's name for its code ("Tarjeta"), the
 * adapter's own name only for a gateway the locales do not know yet.
 */
export function gatewayName(i18n: Translator, gateway: Pick<GatewayOption, 'code' | 'name'>): string {
  const key = `gateway.name.${gateway.code ?? ''}`;
  return gateway.code && i18n.has(key) ? i18n.t(key) : gateway.name;
}
