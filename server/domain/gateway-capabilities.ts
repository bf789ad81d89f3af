import { actionLimit, type SaleAction, type SaleAmounts } from './sales';

// What a gateway can do beyond taking a payment (docs/payments.md "Capabilities"). Real
// processors differ: some cannot hold funds, some capture a hold only whole, some refund
// only whole or not at all. The page offers, and the API accepts, only what the payment's
// gateway can do, so nothing is refused by a processor that could have been refused here.

export interface GatewayCapabilities {
  /** Holds the funds to capture later (a transaction with `authorize`). */
  hold: boolean;
  /** Captures less than it holds. */
  partialCapture: boolean;
  /**
   * Captures a hold more than once. Without it (Stripe: one capture per PaymentIntent) the
   * processor releases what a partial capture left, and the capture's record releases it too.
   */
  repeatedCapture: boolean;
  /** Refunds at all. */
  refunds: boolean;
  /** Refunds less than what is refundable. */
  partialRefunds: boolean;
}

/** The sandbox's, and a module's that declares none: everything. */
const ALL_CAPABILITIES: GatewayCapabilities = { hold: true, partialCapture: true, repeatedCapture: true, refunds: true, partialRefunds: true };

export const capabilitiesOf = (gateway: { capabilities?: Partial<GatewayCapabilities> }): GatewayCapabilities => ({ ...ALL_CAPABILITIES, ...gateway.capabilities });

/**
 * The capability this action on this sale needs and the sale's gateway lacks, or null when
 * it can be made. `amount`: minor units asked, or 'all' (always whole). Read before the
 * reservation, which refuses anything above the limit it finds then: a whole amount read
 * here can only become too much, never partial.
 */
export function missingCapability(capabilities: GatewayCapabilities, action: SaleAction, sale: SaleAmounts, amount: number | 'all'): SaleCapability | null {
  if (action === 'refund' && !capabilities.refunds) return 'refunds';
  // Whatever the amount: a capture made or in flight was the one, and the processor releases the rest.
  if (action === 'capture' && !capabilities.repeatedCapture && sale.captured + sale.capturing > 0) return 'repeatedCapture';
  if (amount === 'all' || amount >= actionLimit(action, sale)) return null;
  if (action === 'capture' && !capabilities.partialCapture) return 'partialCapture';
  if (action === 'refund' && !capabilities.partialRefunds) return 'partialRefunds';
  return null;
}

/** The capabilities an action on a sale may need. */
export type SaleCapability = Exclude<keyof GatewayCapabilities, 'hold'>;

/** What a missing capability means to the API's client. */
export const MISSING_CAPABILITY: Record<SaleCapability, string> = {
  partialCapture: 'its gateway captures a hold only whole',
  repeatedCapture: 'its gateway captures a hold once, and that capture released the rest',
  refunds: 'its gateway makes no refunds',
  partialRefunds: 'its gateway refunds only the whole refundable amount',
};
