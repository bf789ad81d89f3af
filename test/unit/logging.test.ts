import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { LOG_OPTIONS, serializeError } from '../../server/http/logging';

// The logger's last line of defence: whatever a handler passes it, bodies, card fields and
// credential headers come out masked, and errors keep only what holds no input.

function logged(write: (log: pino.Logger) => void): string {
  let out = '';
  const sink = new Writable({
    write(chunk, _encoding, done) {
      out += String(chunk);
      done();
    },
  });
  write(pino(LOG_OPTIONS, sink));
  return out;
}

const CARD = '4242 4242 4242 4242';

describe('logging', () => {
  it('masks bodies, card fields and credential headers at any depth up to four levels', () => {
    const line = logged((log) =>
      log.info(
        {
          body: { card_number: CARD },
          req: { headers: { authorization: 'AppKeys pk:sk_secret', cookie: 'c=1', 'x-csrf-token': 'csrf-secret' } },
          a: { b: { c: { card_cvc: '987', fields: { card_number: CARD } } } },
          secret_key: 'sk_secret',
        },
        'm',
      ),
    );
    // The line's own time and pid are digits too: a short CVC is looked for in what was logged only.
    const { time: _time, pid: _pid, ...fields } = JSON.parse(line);
    const written = JSON.stringify(fields);
    for (const secret of [CARD, 'sk_secret', 'csrf-secret', 'c=1', '987']) expect(written).not.toContain(secret);
    expect(fields.a.b.c.card_cvc).toBe('[redacted]');
  });

  it("drops body-parser's body, and the message of errors that quote the request", () => {
    let parseError: unknown;
    try {
      JSON.parse(`{"card_number":"${CARD}",`);
    } catch (err) {
      parseError = Object.assign(err as Error, { body: `{"card_number":"${CARD}",`, type: 'entity.parse.failed', status: 400, expose: true });
    }
    const line = logged((log) => log.error({ err: new Error('could not pay', { cause: parseError }) }, 'failed'));
    expect(line).not.toContain('4242');
    const err = JSON.parse(line).err;
    expect(err).toMatchObject({ name: 'Error', message: 'could not pay', cause: { name: 'SyntaxError', type: 'entity.parse.failed', status: 400 } });
    expect(err.cause).not.toHaveProperty('message');
  });

  it('keeps what an operator needs of a database error', () => {
    const dbError = Object.assign(new Error('duplicate key value violates unique constraint "x"'), { code: '23505', constraint: 'x', table: 't', detail: 'Key (id_number)=(X1) already exists.' });
    expect(serializeError(dbError)).toEqual({ name: 'Error', message: dbError.message, stack: dbError.stack, code: '23505', constraint: 'x', table: 't' });
  });
});
