// Strong customer authentication (3-D Secure-like): how the cardholder was authenticated
// for a payment, as the gateway reports it and the sale records it.

export const AUTHENTICATION_STATUSES = ['authenticated', 'failed', 'exempt'] as const;
export const AUTHENTICATION_METHODS = ['challenge', 'frictionless', 'merchant_initiated'] as const;

/**
 * At the issuer's challenge, without one (frictionless: the issuer was satisfied by what
 * it knew), or not asked (exempt) because the merchant started the charge of a stored card.
 */
export interface Authentication {
  status: (typeof AUTHENTICATION_STATUSES)[number];
  method: (typeof AUTHENTICATION_METHODS)[number];
}

/** Every charge of a stored card: started by the merchant, so the cardholder is not asked again. */
export const MERCHANT_INITIATED: Authentication = { status: 'exempt', method: 'merchant_initiated' };
