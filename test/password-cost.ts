/**
 * scrypt at N = 2^10 for the suites' dashboard passwords instead of the service's 2^15
 * (PASSWORD_HASH_COST): the same code and hash format at 1/32 of the work, for suites that
 * hash and verify thousands of passwords. The default cost is tested in
 * test/unit/passwords.test.ts.
 */
export const TEST_PASSWORD_HASH_COST = '10';
