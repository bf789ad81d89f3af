import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';
import { DEFAULT_PASSWORD_COST, hashPassword, verifyPassword } from '../../server/dashboard/passwords';

// Dashboard password hashes: the service's cost by default, a lower one only when
// PASSWORD_HASH_COST says so (the test suites), and every hash verified at its own cost.

describe('password hashes', () => {
  it('are scrypt at N = 2^15 unless PASSWORD_HASH_COST says otherwise', async () => {
    expect(loadConfig({}).passwordHashCost).toBe(DEFAULT_PASSWORD_COST);
    expect(DEFAULT_PASSWORD_COST).toBe(15);
    const hash = await hashPassword('correct horse battery', loadConfig({}).passwordHashCost);
    expect(hash).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(await verifyPassword('correct horse battery', hash, DEFAULT_PASSWORD_COST)).toBe(true);
    expect(await verifyPassword('correct horse batterY', hash, DEFAULT_PASSWORD_COST)).toBe(false);
  });

  it('keep the cost they were made with when the setting changes', async () => {
    const cheap = await hashPassword('correct horse battery', 10);
    expect(cheap.split('$')[1]).toBe('1024');
    expect(await verifyPassword('correct horse battery', cheap, DEFAULT_PASSWORD_COST)).toBe(true);
  });

  it('say no for an unknown account, after the same work', async () => {
    expect(await verifyPassword('correct horse battery', null, 10)).toBe(false);
  });

  it('refuse a cost below 2^10 or above 2^20 at start', () => {
    expect(() => loadConfig({ PASSWORD_HASH_COST: '9' })).toThrow(/PASSWORD_HASH_COST/);
    expect(() => loadConfig({ PASSWORD_HASH_COST: '21' })).toThrow(/PASSWORD_HASH_COST/);
    expect(loadConfig({ PASSWORD_HASH_COST: '12' }).passwordHashCost).toBe(12);
  });
});
