import { apiCompare } from 'api-smart-diff';

// What a client written against the released document would see break in the current one:
// an operation, a field or an enum value removed, a new required request field or
// parameter, a type or a limit narrowed. api-smart-diff classifies every change of two
// OpenAPI documents (it resolves the $refs, so a change to a shared schema shows at every
// operation that uses it); the changes it calls breaking are the incompatible ones.

/**
 * Where a change can be ignored: the server's address, the document's own metadata, and
 * the components as such. api-smart-diff resolves every $ref, so a component's change is
 * reported, classified, where operations use it (a field added to an answer is compatible,
 * the same field added to a request body is not); a component alone cannot say which it is.
 */
const IGNORED = new Set(['servers', 'info', 'components']);

/**
 * A value added to an enum of an answer: api-smart-diff calls it breaking, but the API's
 * policy (docs/changelog.md) lets answers gain enum values within a version, and tells
 * clients to expect them. The same addition in a request, or a value removed, still counts.
 */
const answerEnumGrows = (d: { action: string; path: readonly PropertyKey[] }) =>
  d.action === 'add' && d.path.includes('responses') && d.path[d.path.length - 2] === 'enum';

export function incompatibleChanges(released: unknown, current: unknown): string[] {
  const { diffs } = apiCompare(released, current);
  return diffs
    .filter((d) => d.type === 'breaking' && !IGNORED.has(String(d.path[0])) && !answerEnumGrows(d))
    .map((d) => `${d.action} ${d.path.join('.')}${d.description ? `: ${d.description}` : ''}`);
}
