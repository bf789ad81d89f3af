import type SQLite from 'better-sqlite3';

export function defineFunctions(db: SQLite.Database): void;
