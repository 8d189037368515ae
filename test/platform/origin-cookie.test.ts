// src/platform/origin-cookie.ts: over https a browser-binding cookie is a __Host- cookie (this origin
// only, Secure, Path=/); over plain http it keeps its name and the path of the pages that read it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { originCookie } from '../../src/platform/origin-cookie.ts';

test('over https: __Host- prefixed, Secure, for the whole host whatever the public path', () => {
  assert.deepEqual(originCookie('wfs_sso_flow', 'https://login.example.com/wfs/', '/oauth'), { name: '__Host-wfs_sso_flow', path: '/', secure: true });
});

test('over http: the plain name, scoped to the pages under the public path', () => {
  assert.deepEqual(originCookie('wfs_login_csrf', 'http://localhost:3000', '/oauth/authorize'), { name: 'wfs_login_csrf', path: '/oauth/authorize', secure: false });
  assert.deepEqual(originCookie('wfs_sso_flow', 'http://localhost:3000/wfs/', '/oauth'), { name: 'wfs_sso_flow', path: '/wfs/oauth', secure: false });
});
