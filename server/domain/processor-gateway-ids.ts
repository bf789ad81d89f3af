// The ids of the connected processors' gateways: the same in every environment, like the
// seeded gateways'. Here rather than in their connectors so that what only reads a stored
// row (the sale's presenter: whose money it is, domain/processor-settlement.ts) can tell a
// processor's sale without importing a gateway.

export const STRIPE_CARD_ID = '0190f5a0-0000-7000-8000-000000057001';
export const REDSYS_CARD_ID = '0190f5a0-0000-7000-8000-0000000e5001';
export const REDSYS_BIZUM_ID = '0190f5a0-0000-7000-8000-0000000e5002';
