import type { CheckoutView, GatewayOption, Language, ScreenStatus } from '../../widget/screen/view';
import type { Gateway } from '../payments/gateway';
import type { AuthorizationRow } from '../store/schema';
import { embedView } from './view-model';

// The page that saves a card (/pay/sav_…/) as the payment screen's view: the same screen,
// model and client script, with no amount and no order lines (`saveCard`). Pure: the
// routes (save-routes.ts) fetch.

export interface SaveViewInput {
  row: AuthorizationRow;
  merchantName: string;
  language: Language;
  csrf: string;
  now: Date;
  embed: { parentOrigin: string } | null;
  /** The authorization's gateway, the one way this page takes a card. */
  gateway: Gateway | undefined;
  /** This answer shows the result of the customer's own action (see EmbedView.justFinished). */
  justFinished?: boolean;
  cancelled?: boolean;
  declined?: boolean;
  confirmCancel?: boolean;
  error?: CheckoutView['error'];
  values?: Record<string, string>;
}

// No expiry: the link stays valid while the authorization waits for its card.
const NEVER = '9999-12-31T23:59:59.999Z';

/** Waiting for a card (or its challenge): the form; saved: the confirmation; failed or removed: closed. */
function screenStatus(input: SaveViewInput): ScreenStatus {
  const { status } = input.row;
  if (status === 'active') return 'paid';
  // Its challenge answered but what the gateway did is not known yet: being checked, as a payment in doubt is.
  if (status === 'requires_action' && !input.row.gateway_challenge) return 'checking';
  if (status === 'pending' || status === 'requires_action') return input.cancelled ? 'cancelled' : input.declined ? 'declined' : 'pending';
  return 'expired';
}

/** The authorization's gateway, as the screen offers it. */
function gatewayOptions(gateway: Gateway | undefined): GatewayOption[] {
  if (!gateway?.enabled) return [];
  return [{ id: gateway.id, code: gateway.code, name: gateway.name, flow: gateway.flow, fields: gateway.fields }];
}

export function buildSaveView(input: SaveViewInput): CheckoutView {
  const { row } = input;
  const status = screenStatus(input);
  const gateways = gatewayOptions(input.gateway);
  const urls = { return_url: row.return_url ?? null, cancel_url: row.cancel_url ?? null };
  return {
    // The widget reports it as the result's transaction_id: here, the authorization's id.
    transactionId: row.id,
    language: input.language,
    merchantName: input.merchantName,
    orderId: null,
    // Nothing is charged: no amount is shown, so any currency will do.
    currency: 'EUR',
    exponent: 2,
    lines: [],
    itemsPrice: 0,
    tax: null,
    shipping: null,
    coupon: null,
    totalPrice: 0,
    expiresAt: NEVER,
    serverNow: input.now.toISOString(),
    status,
    gateways,
    selectedGateway: gateways[0]?.id ?? null,
    error: input.error ?? null,
    receipt: null,
    csrf: input.csrf,
    embed: embedView(input.embed, urls, !!input.justFinished && (status === 'paid' || status === 'cancelled')),
    saveCard: true,
    confirmCancel: input.confirmCancel ?? false,
    ...(input.values ? { values: input.values } : {}),
  };
}
