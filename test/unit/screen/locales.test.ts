import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxGateways } from '../../../server/payments/sandbox';
import { LANGUAGES } from '../../../widget/i18n/language';

const LOCALES_DIR = join(import.meta.dirname, '../../../locales');

function load(language: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(LOCALES_DIR, `${language}.json`), 'utf8')) as Record<string, unknown>;
}

const base = load('en');
const baseKeys = Object.keys(base).sort();

describe('locale files', () => {
  it('are exactly the four languages', () => {
    const files = readdirSync(LOCALES_DIR).filter((file) => file.endsWith('.json')).sort();
    expect(files).toEqual([...LANGUAGES].map((language) => `${language}.json`).sort());
  });

  it.each([...LANGUAGES])('%s has the same keys as en.json', (language) => {
    const keys = Object.keys(load(language)).sort();
    const missing = baseKeys.filter((key) => !keys.includes(key));
    const extra = keys.filter((key) => !baseKeys.includes(key));
    expect({ missing, extra }).toEqual({ missing: [], extra: [] });
  });

  it.each([...LANGUAGES])('%s has only non-empty strings', (language) => {
    const bad = Object.entries(load(language)).filter(([, value]) => typeof value !== 'string' || value.trim() === '');
    expect(bad).toEqual([]);
  });

  it.each([...LANGUAGES])('%s uses the same placeholders as en.json in every string', (language) => {
    // A translated string that drops {{amount}} would silently show a pay button without it.
    const placeholders = (text: unknown) => [...String(text).matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]).sort();
    const strings = load(language);
    const mismatched = baseKeys.filter((key) => placeholders(strings[key]).join() !== placeholders(base[key]).join());
    expect(mismatched).toEqual([]);
  });

  it('en.json keys avoid underscores, which mark plural forms', () => {
    const stray = baseKeys.filter((key) => key.includes('_') && !/_(zero|one|two|few|many|other)$/.test(key));
    expect(stray).toEqual([]);
  });

  it.each([...LANGUAGES])('%s names every gateway (by code), so no adapter name leaks into the page', (language) => {
    const strings = load(language);
    const unnamed = sandboxGateways().map((gateway) => `gateway.name.${gateway.code}`).filter((key) => typeof strings[key] !== 'string');
    expect(unnamed).toEqual([]);
  });
});
