import { randomFillSync } from 'node:crypto';

// Every call into the CSPRNG crosses into C++ (a few microseconds); a request that makes a
// transaction needs five or six ids and tokens. So the bytes come from the same CSPRNG in
// 4 KiB refills (as Node does for randomUUID), and every caller gets its own copy: no byte
// is ever handed out twice.

const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let offset = POOL_SIZE;

/** `size` (at most 4 KiB) cryptographically secure random bytes, in a new Buffer. */
export function secureRandomBytes(size: number): Buffer {
  if (size > POOL_SIZE) throw new RangeError(`at most ${POOL_SIZE} bytes at a time`);
  if (offset + size > POOL_SIZE) {
    randomFillSync(pool);
    offset = 0;
  }
  const bytes = Buffer.from(pool.subarray(offset, offset + size));
  // Zeroed once handed out, so the pool never keeps a copy of a live secret.
  pool.fill(0, offset, offset + size);
  offset += size;
  return bytes;
}
