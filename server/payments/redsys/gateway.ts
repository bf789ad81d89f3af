import { REDSYS_BIZUM_ID, REDSYS_CARD_ID } from '../../domain/processor-gateway-ids';
import { type ActionInput, type Gateway, GATEWAY_INTERFACE_VERSION, type GatewayNotification, type NotActed, type PayInput, type ReturnInput, type SettledResult, type StoreInput } from '../gateway';
import { operate } from './actions';
import { charge } from './charge';
import { type OperationLog, operationsInMemory, orderClaimsInMemory, type RedsysContext, sentMemory } from './context';
import { lookup } from './lookup';
import { customerReturn, notification } from './notification';
import type { ClaimOrder } from './order';
import { type Method, type RedirectResult, redirectPay } from './pay';
import { probeQueryService } from './query';
import { redirectStore, type StoreRedirect } from './store';
import { redsysSettingsSchema, type RedsysSettingsInput } from './settings';

// The Redsys connector's core: one virtual terminal's card and Bizum gateways of the
// `Gateway` interface. Payments go by redirect to Redsys's page (pay.ts); only the signed
// notification or the query service says they were paid (notification.ts, lookup.ts);
// confirmations, cancellations and refunds go by REST, one at a time per order and never
// re-sent blindly (actions.ts); cards saved on Redsys's page (store.ts) or by a hold are
// charged by REST as merchant-initiated (charge.ts). The processors API connects it per
// environment (processor-gateways.ts, docs/processors.md "Connecting Redsys").

/** The same in every environment, like the seeded gateways' ids (domain/processor-gateway-ids.ts). */
export { REDSYS_BIZUM_ID, REDSYS_CARD_ID };

export interface RedsysGateway extends Gateway {
  pay(input: PayInput): Promise<RedirectResult | NotActed>;
  /** The card's only (Bizum keeps no cards): Redsys's page, by a POST redirect (store.ts). */
  store?(input: StoreInput): Promise<StoreRedirect | NotActed>;
  /** The signed asynchronous notification (notification.ts): null when it does not verify. */
  notification(input: { headers: Record<string, string | string[] | undefined>; body: Buffer }): Promise<GatewayNotification | null>;
  /** The customer's return (URLOK / URLKO): verified, it triggers a query and never settles by itself (notification.ts). */
  return(input: ReturnInput): Promise<SettledResult | { outcome: 'pending' } | NotActed>;
  /** Whether the bank enabled the query service on this terminal (for `query_service` when connecting). */
  probeQueryService(input: { signal: AbortSignal }): Promise<{ available: boolean; errorCode?: string }>;
}

const CODES: Record<Method, { id: string; code: string; name: string }> = {
  card: { id: REDSYS_CARD_ID, code: 'redsys-card', name: 'Card' },
  bizum: { id: REDSYS_BIZUM_ID, code: 'redsys-bizum', name: 'Bizum' },
};

function gatewayFor(ctx: RedsysContext, method: Method): RedsysGateway {
  const { settings } = ctx;
  const action = (kind: 'capture' | 'refund' | 'void') => (input: ActionInput) => operate(ctx, kind, input);
  return {
    version: GATEWAY_INTERFACE_VERSION,
    ...CODES[method],
    flow: 'redirect',
    fields: [],
    currencies: method === 'bizum' ? ['EUR'] : [...settings.currencies],
    enabled: true,
    sandbox: !settings.live,
    // Bizum: euros only, no hold, no saved cards (no `store`). The card's are saved on Redsys's page (store.ts), or by a hold (pay.ts).
    capabilities: method === 'bizum' ? { hold: false, partialCapture: false } : { hold: true, partialCapture: true, refunds: true, partialRefunds: true },
    // The page posts the customer to Redsys (form-action), and its redirects may go there only.
    origins: { form: [settings.redsysOrigin], redirect: [settings.redsysOrigin] },
    // Only while a test double stands in for Redsys (REDSYS_URL): its page is on its own origin, on loopback.
    ...(settings.origin === settings.redsysOrigin ? {} : { replacedOrigin: settings.origin }),
    pay: async (input) => redirectPay(ctx, input, method),
    capture: action('capture'),
    refund: action('refund'),
    void: action('void'),
    ...(method === 'card' ? { store: (input: StoreInput) => redirectStore(ctx, input) } : {}),
    charge: async (input) => (method === 'bizum' ? { outcome: 'not_acted', reason: 'Bizum has no stored payment methods' } : charge(ctx, input)),
    lookup: (input) => lookup(ctx, input),
    notification: (input) => notification(ctx, input),
    return: (input) => customerReturn(ctx, input),
    probeQueryService: (input) => probeQueryService(ctx, input.signal),
  };
}

/** The card and Bizum gateways of one Redsys terminal, sharing its memory and its one-operation-per-order guard. */
export function redsysGateways(input: RedsysSettingsInput, options: { now?: () => Date; claimOrder?: ClaimOrder; operations?: OperationLog } = {}): [RedsysGateway, RedsysGateway] {
  const settings = redsysSettingsSchema.parse(input);
  const ctx: RedsysContext = {
    settings,
    sent: sentMemory(),
    operations: options.operations ?? operationsInMemory(),
    claimOrder: options.claimOrder ?? orderClaimsInMemory(),
    inFlight: new Map(),
    unresolved: new Map(),
    now: options.now ?? (() => new Date()),
  };
  return [gatewayFor(ctx, 'card'), gatewayFor(ctx, 'bizum')];
}
