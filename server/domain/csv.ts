// CSV as spreadsheets read it (RFC 4180): fields quoted when they hold a comma, a quote, a
// line break or a semicolon (the list separator of spreadsheets in Spanish or French, which
// would split `x;=1+1` into a formula cell there), quotes doubled, lines ended by CRLF. Text
// that a spreadsheet would run as a formula (it starts with =, +, -, @, a tab or a carriage
// return) gets a leading apostrophe, as OWASP advises for CSV injection: an order id or a
// concept is the payer's text.

/** A cell: text is guarded against formulas; numbers (amounts as decimal text) are not. */
export type Cell = { text: string | null } | { number: string | number | null };

const FORMULA = /^[=+\-@\t\r]/;

function field(cell: Cell): string {
  const raw = 'text' in cell ? cell.text : cell.number;
  if (raw === null) return '';
  const value = 'text' in cell && FORMULA.test(String(raw)) ? `'${raw}` : String(raw);
  return /[",;\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

export function csvLine(cells: readonly Cell[]): string {
  return `${cells.map(field).join(',')}\r\n`;
}

export const text = (value: string | null | undefined): Cell => ({ text: value ?? null });
export const number = (value: string | number | null | undefined): Cell => ({ number: value ?? null });
