// Configuration (contract: addresses and configuration): read once into a frozen object with the documented defaults; a bad value
// is refused with a message naming the variable, and the server does not start on it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig, weakTokenWarnings } from '../../src/platform/config.ts';
import { runServerToEnd } from '../support/processes.ts';

test('the defaults are those of the contract, and the object is frozen', () => {
  const config = loadConfig({});
  assert.equal(config.port, 8080);
  assert.equal(config.host, '127.0.0.1');
  assert.equal(config.baseUrl, 'http://localhost:8080');
  assert.equal(config.authUrl, config.baseUrl);
  assert.equal(config.issuer, 'http://localhost:8080/api/v1/iam');
  assert.equal(config.databaseUrl, 'sqlite:./data/wfs.db');
  assert.deepEqual(
    [config.accessTokenTtl, config.refreshTokenTtl, config.authCodeTtl, config.refreshGraceSeconds, config.refreshChainMaxSeconds],
    [3600, 15_552_000, 180, 600, 63_072_000],
  );
  assert.deepEqual([config.rateLimitTokenPerMinute, config.rateLimitApiPerMinute, config.clockSkewSeconds], [60, 1200, 3]);
  assert.equal(config.redisUrl, undefined);
  assert.equal(config.adminToken, undefined);
  assert.equal(config.trustProxy, false, 'X-Forwarded-For is not believed unless the operator says so');
  assert.equal(config.changesRetentionSeconds, 2_592_000, 'the change log keeps 30 days');
  assert.equal(config.passwordHashCost, 14, 'new user secrets and passwords hash at scrypt N = 16,384');
  assert.ok(Object.isFrozen(config));
  assert.throws(() => {
    (config as { port: number }).port = 1;
  }, TypeError);
});

test('a bad value is refused with a message naming the variable', () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ PORT: 'abc' }, /^PORT must be a whole number/],
    [{ PORT: '70000' }, /^PORT must be at most 65535/],
    [{ BASE_URL: 'not a url' }, /^BASE_URL must be an absolute URL/],
    [{ AUTH_URL: 'ftp://login.example' }, /^AUTH_URL must be an http\(s\) URL/],
    [{ DATABASE_URL: 'mysql://db' }, /^DATABASE_URL must be sqlite:/],
    [{ REDIS_URL: 'localhost:6379' }, /^REDIS_URL must be a redis:\/\/ URL/],
    [{ ACCESS_TOKEN_TTL: '0' }, /^ACCESS_TOKEN_TTL must be at least 1/],
    [{ AUTH_CODE_TTL: '1.5' }, /^AUTH_CODE_TTL must be a whole number/],
    [{ RATE_LIMIT_TOKEN_PER_MINUTE: '-3' }, /^RATE_LIMIT_TOKEN_PER_MINUTE must be a whole number/],
    [{ LOG_LEVEL: 'loud' }, /^LOG_LEVEL must be one of/],
    [{ CHANGES_RETENTION_SECONDS: '0' }, /^CHANGES_RETENTION_SECONDS must be at least 1/],
    [{ TRUST_PROXY: 'true' }, /^TRUST_PROXY must be a number of proxy hops or a comma-separated list/],
    [{ TRUST_PROXY: '10.0.0.0/40' }, /^TRUST_PROXY must be/],
    [{ TRUST_PROXY: '10.0.0.1,proxy.internal' }, /^TRUST_PROXY must be/],
    [{ PASSWORD_HASH_COST: '9' }, /^PASSWORD_HASH_COST must be at least 10/],
    [{ PASSWORD_HASH_COST: '21' }, /^PASSWORD_HASH_COST must be between 10 and 20/],
  ];
  for (const [env, message] of cases) assert.throws(() => loadConfig(env), (error: unknown) => error instanceof ConfigError && message.test(error.message), JSON.stringify(env));
});

test('TRUST_PROXY takes a hop count or proxy addresses and ranges; 0 or empty trusts nobody', () => {
  assert.equal(loadConfig({ TRUST_PROXY: '1' }).trustProxy, 1);
  assert.equal(loadConfig({ TRUST_PROXY: '0' }).trustProxy, false);
  assert.equal(loadConfig({ TRUST_PROXY: '' }).trustProxy, false);
  assert.equal(loadConfig({ TRUST_PROXY: ' 127.0.0.1, 10.0.0.0/8 ,::1' }).trustProxy, '127.0.0.1,10.0.0.0/8,::1');
  assert.equal(loadConfig({ TRUST_PROXY: 'fd00::/8' }).trustProxy, 'fd00::/8');
});

test('a short ADMIN_TOKEN or METRICS_TOKEN is taken (the contract enables the APIs whenever set) and warned about at start', () => {
  const short = loadConfig({ ADMIN_TOKEN: 'admin', METRICS_TOKEN: 'metrics-token' });
  assert.deepEqual([short.adminToken, short.metricsToken], ['admin', 'metrics-token']);
  const warnings = weakTokenWarnings(short);
  assert.equal(warnings.length, 2);
  assert.match(warnings[0] ?? '', /^ADMIN_TOKEN is shorter than 16 characters/);
  assert.match(warnings[1] ?? '', /^METRICS_TOKEN is shorter than 16 characters/);
  assert.deepEqual(weakTokenWarnings(loadConfig({ ADMIN_TOKEN: 'a'.repeat(16) })), []);
  assert.deepEqual(weakTokenWarnings(loadConfig({})), []);
});

test('the server does not start on a bad value: exit status 2 and the message on standard error', async () => {
  const result = await runServerToEnd({ PORT: 'abc', DATABASE_URL: 'sqlite::memory:' });
  assert.equal(result.code, 2);
  assert.match(result.stderr, /PORT must be a whole number, got "abc"/);
  assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
});
