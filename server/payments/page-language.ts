import { z } from 'zod';
import { type Language, LANGUAGES } from '../../widget/i18n/language';
import type { GatewayCall } from '../store/gateway-calls';

// The hosted page's language travels in its pay call's stored request (payCall), so that
// whoever records the attempt (the live request, a return, the reconciliation, a
// notification) stores it with the attempt, for the payment's dashboard page.

const pageLanguage = z.enum(LANGUAGES);

/** The language of the page a pay call was made from; null for a call made elsewhere, or before it was kept. */
export function pageLanguageOf(call: Pick<GatewayCall, 'request'>): Language | null {
  const read = pageLanguage.safeParse(call.request.language);
  return read.success ? read.data : null;
}
