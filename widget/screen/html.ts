// The one escaper for HTML written as text (the document shell, and the server's small
// hand-written pages: the sandbox provider page, the demo shop). Preact escapes what it
// renders itself. Quotes are escaped too, so the result is safe in text and in quoted attributes.

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => ESCAPES[char]!);
}
