// Compliance rules for clients, pure. Which documents a client needs, and the sandbox
// reviewer's verdict on one document.

export const CLIENT_TYPES = ['individual', 'company'] as const;
export type ClientType = (typeof CLIENT_TYPES)[number];

export const DOCUMENT_TYPES = [
  'identity_front',
  'identity_back',
  'proof_of_address',
  'company_registration',
  'bank_statement',
  'other',
] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

export const DOCUMENT_STATUSES = ['pending', 'accepted', 'rejected'] as const;

const IDENTITY: readonly DocumentType[] = ['identity_front', 'identity_back'];

/**
 * A client is enabled by compliance once it has an accepted identity document (either
 * side), and a company also an accepted company registration. A client without a
 * `client_type` is reviewed as an individual.
 */
export function isCompliant(clientType: string | null, accepted: ReadonlySet<string>): boolean {
  const identified = IDENTITY.some((t) => accepted.has(t));
  return clientType === 'company' ? identified && accepted.has('company_registration') : identified;
}

export type Verdict = { status: 'accepted'; reason: null } | { status: 'rejected'; reason: string };

/** The sandbox reviewer: a file whose name starts with "reject" (any case) is rejected. */
export function sandboxVerdict(fileName: string): Verdict {
  return /^reject/i.test(fileName)
    ? { status: 'rejected', reason: 'sandbox: the file name starts with "reject"' }
    : { status: 'accepted', reason: null };
}
