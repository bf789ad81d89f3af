import { apiCompare } from 'api-smart-diff';

// What a client written against the released document would see break in the current one:
// an operation, a field or an enum value removed, a new required request field or
// parameter, a type or a limit narrowed. api-smart-diff classifies every change of two
// OpenAPI documents (it resolves the $refs, so a change to a shared schema shows at every
// operation that uses it); the changes it calls breaking are the incompatible ones.

/** The origin the released documents are written at, so that only the contract is compared. */
export const RELEASE_ORIGIN = 'https://payments.internal';

/**
 * Where a change can be ignored: the server's address, the document's own metadata, and
 * the components as such. api-smart-diff resolves every $ref, so a component's change is
 * reported, classified, where operations use it (a field added to an answer is compatible,
 * the same field added to a request body is not); a component alone cannot say which it is.
 */
const IGNORED = new Set(['servers', 'info', 'components']);

/**
 * An answer that grows: a value added to one of its enums, or a field it now always sends
 * (added to its `required`). api-smart-diff calls both breaking, but the API's policy
 * (docs/changelog.md) lets answers gain enum values and fields within a version, and a
 * field that is always there breaks no reader. The same additions in a request, or
 * anything removed, still count.
 */
const answerGrows = (d: { action: string; path: readonly PropertyKey[] }) =>
  d.action === 'add' && d.path.includes('responses') && ['enum', 'required'].includes(String(d.path[d.path.length - 2]));

export function incompatibleChanges(released: unknown, current: unknown): string[] {
  const { diffs } = apiCompare(released, current);
  return diffs
    .filter((d) => d.type === 'breaking' && !IGNORED.has(String(d.path[0])) && !answerGrows(d))
    .map((d) => `${d.action} ${d.path.join('.')}${d.description ? `: ${d.description}` : ''}`);
}
