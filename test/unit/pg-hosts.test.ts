import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';
import { isDatabaseUnavailable } from '../../server/store/errors';
import { hostOf, hostsProblem, hostUrls, meansPrimaryLost } from '../../server/store/pg-hosts';

// libpq's multi-host DATABASE_URL, split into one URL per host for node-postgres.

describe('multi-host DATABASE_URL', () => {
  it('gives one URL per host, in order, with the credentials, database and other parameters, without target_session_attrs', () => {
    expect(hostUrls('postgres://u:p%40w@h1:5432,h2:5433,[::1]:5434/db?sslmode=require&target_session_attrs=read-write&application_name=x')).toEqual([
      'postgres://u:p%40w@h1:5432/db?sslmode=require&application_name=x',
      'postgres://u:p%40w@h2:5433/db?sslmode=require&application_name=x',
      'postgres://u:p%40w@[::1]:5434/db?sslmode=require&application_name=x',
    ]);
    expect(hostUrls('postgresql://h1,h2/db?target_session_attrs=primary')).toEqual(['postgresql://h1/db', 'postgresql://h2/db']);
    expect(hostOf('postgres://u:secret@h2:5433/db')).toBe('h2:5433');
  });

  it('leaves a single-host URL as it was (a socket directory in the query included)', () => {
    expect(hostUrls('postgres://root@/checkout_ci?host=/var/run/postgresql')).toEqual(['postgres://root@/checkout_ci?host=/var/run/postgresql']);
    expect(hostsProblem('postgres://root@/checkout_ci?host=/var/run/postgresql')).toBeNull();
  });

  it('refuses what it cannot honour, at start', () => {
    expect(hostsProblem('postgres://h1,h2/db?target_session_attrs=read-write')).toBeNull();
    expect(hostsProblem('postgres://h1,h2/db?target_session_attrs=any')).toMatch(/only read-write/);
    expect(hostsProblem('postgres://h1,,h2/db')).toMatch(/empty host/);
    expect(() => loadConfig({ DATABASE_URL: 'postgres://h1,h2/db?target_session_attrs=standby' })).toThrow(/DATABASE_URL: target_session_attrs=standby/);
    expect(loadConfig({ DATABASE_URL: 'postgres://h1:5432,h2:5432/db?target_session_attrs=read-write' }).databaseUrl).toContain('h1:5432,h2:5432');
    expect(loadConfig({}).databasePooler).toBe('none');
    expect(() => loadConfig({ DATABASE_POOLER: 'session' })).toThrow(/DATABASE_POOLER/);
  });

  it('looks for the primary again on a lost connection or a read-only refusal, not on a bad query', () => {
    expect(meansPrimaryLost({ code: '25006' })).toBe(true);
    expect(meansPrimaryLost({ code: '57P01' })).toBe(true);
    expect(meansPrimaryLost({ code: 'ECONNREFUSED' })).toBe(true);
    expect(meansPrimaryLost(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(meansPrimaryLost({ code: '23505' })).toBe(false);
    expect(meansPrimaryLost({ code: '57014' })).toBe(false);
  });

  it('a read-only refusal (a standby reached mid-failover) is the database being away: a 503, not a 500', () => {
    expect(isDatabaseUnavailable({ code: '25006' })).toBe(true);
    expect(isDatabaseUnavailable({ code: '23505' })).toBe(false);
  });
});
