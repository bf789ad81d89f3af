// The start of a long text for a table's cell (a webhook receiver's answer): cut by
// characters, never inside one (a surrogate pair: an emoji cut in half is a broken glyph),
// and marked as cut, so the reader knows more was said.

export function cutText(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max).join('')}…`;
}
