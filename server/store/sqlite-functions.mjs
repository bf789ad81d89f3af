// SQL functions both SQLite connections (the reader, db.ts; the writer thread,
// sqlite-writer.mjs) define alike. Plain JavaScript, as the writer thread is.

/**
 * SQLite's own lower() folds only A–Z: 'ÁNGEL' stayed 'ÁNGEL', so a search lowercased in
 * JavaScript never found it, where PostgreSQL's (in a UTF-8 locale) does. This one is
 * JavaScript's. No index uses lower(); one stored value does: the payers' keys, written by
 * migration 132's trigger on every insert of a transaction, so every connection that
 * writes transactions defines it (both of the service's do).
 */
export function defineFunctions(db) {
  db.function('lower', { deterministic: true }, (text) => (text === null ? null : String(text).toLowerCase()));
}
