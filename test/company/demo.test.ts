// seed-demo fills the demo company through the import: Europe/Amsterdam, four departments, all four
// shift categories, about fifty employees (some gone, some starting next month), hourly and monthly
// contracts, badges, and shifts from today − 8 to today + 38 — the same data for the same seed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DateTime } from 'luxon';
import { startTestServer, type TestServer } from '../support/server.ts';
import { mintTokens, type Tenant } from '../support/tenants.ts';
import { seedDemo, type DemoCredentials } from '../../src/demo/seed.ts';
import { demoCompanyDocument } from '../../src/demo/company-data.ts';
import type { Configuration } from '../../src/company/configuration.ts';
import { apiGet, dayFromToday, walk } from './fixtures.ts';

let server: TestServer;
let demo: DemoCredentials;
let token: string;
const T = (days: number) => dayFromToday(days);

async function tokenFor(credentials: DemoCredentials): Promise<string> {
  const apiUser = await server.ctx.db.selectFrom('api_users').select('id').where('client_id', '=', credentials.clientId).executeTakeFirstOrThrow();
  const tenant: Tenant = { ...credentials, userId: apiUser.id, email: credentials.userEmail, secret: credentials.userSecret };
  return (await mintTokens(server.ctx, tenant)).id_token;
}

interface User { id: string; employmentStart: string; employmentEnd: string | null; timeclockActive: boolean }
interface Contract { startDate: string; endDate: string | null; wage: { amount: number; currency: string; period: string } }
interface Shift { id: string; date: string; startsAt: string; endsAt: string; userId: string | null; category: string; departmentId: string; breakMinutes: number; note: string | null }

before(async () => {
  server = await startTestServer({}, { inProcess: true });
  demo = await seedDemo(server.ctx.db, server.config, { seed: 7 });
  token = await tokenFor(demo);
});
after(() => server.close());

test('the demo company is in Europe/Amsterdam with four departments, positions and all four shift categories', async () => {
  const { body } = await apiGet<Configuration>(server.baseUrl, token, '/company/configuration');
  assert.equal(body.company.timezone, 'Europe/Amsterdam');
  assert.equal(body.company.currency, 'EUR');
  assert.equal(body.departments.length, 4);
  assert.ok(body.positions.length >= 4);
  assert.deepEqual([...new Set(body.shiftTypes.map((s) => s.category))].sort(), ['absence', 'availability', 'relief', 'work']);
  assert.ok(body.contractTypes.length >= 2);
});

test('about fifty employees: some ended, some starting next month, most with a badge and an active timeclock', async () => {
  const everyone = await walk<User>(server.baseUrl, token, `/company/users?from=2000-01-01&to=${T(400)}`);
  assert.equal(everyone.items.length, 50);
  const current = await walk<User>(server.baseUrl, token, '/company/users');
  const ended = everyone.items.filter((u) => u.employmentEnd !== null && u.employmentEnd < T(0));
  assert.ok(ended.length >= 2, 'some employments ended');
  assert.equal(current.items.length, 50 - ended.length);
  const nextMonth = DateTime.now().setZone('Europe/Amsterdam').plus({ months: 1 }).startOf('month').toISODate();
  assert.ok(everyone.items.filter((u) => u.employmentStart === nextMonth).length >= 2, 'some start next month');
  assert.ok(everyone.items.filter((u) => u.timeclockActive).length >= 35, 'most have an active timeclock');
  const badges = await server.ctx.db.selectFrom('employees').select('badge_id').where('company_id', '=', demo.companyId).where('badge_id', 'is not', null).execute();
  assert.ok(badges.length >= 40, 'most have a badge');
});

test('contracts: hourly and monthly wages, a few ended, a few still to start', async () => {
  const all = await walk<Contract>(server.baseUrl, token, `/company/contracts?from=2000-01-01&to=${T(400)}`);
  assert.ok(all.items.length >= 50);
  assert.deepEqual([...new Set(all.items.map((c) => c.wage.period))].sort(), ['hour', 'month']);
  assert.ok(all.items.every((c) => c.wage.currency === 'EUR' && c.wage.amount > 0));
  assert.ok(all.items.filter((c) => c.endDate !== null && c.endDate < T(0)).length >= 3, 'some ended');
  assert.ok(all.items.filter((c) => c.startDate > T(0)).length >= 2, 'some in the future');
  const today = await walk<Contract>(server.baseUrl, token, '/company/contracts');
  assert.ok(today.items.length >= 40 && today.items.length < all.items.length);
});

test('shifts from today − 8 to today + 38 with open, overnight, absence, availability and relief shifts', async () => {
  const { items } = await walk<Shift>(server.baseUrl, token, `/company/timetable?from=${T(-20)}&to=${T(60)}&limit=1000`);
  const dates = [...new Set(items.map((s) => s.date))].sort();
  assert.equal(dates[0], T(-8));
  assert.equal(dates.at(-1), T(38));
  assert.equal(dates.length, 47);
  assert.ok(items.length > 1000, `${items.length} shifts`);
  assert.deepEqual([...new Set(items.map((s) => s.category))].sort(), ['absence', 'availability', 'relief', 'work']);
  assert.ok(items.some((s) => s.userId === null), 'open shifts');
  assert.ok(items.some((s) => s.endsAt.slice(0, 10) > s.date), 'overnight shifts');
  const feed = await apiGet<{ shifts: unknown[] }>(server.baseUrl, token, `/feeds/timetable?date=${T(-8)}`);
  assert.ok(feed.body.shifts.length > 10);
});

test('the same seed on the same day gives the same data; another seed does not', async () => {
  const day = T(0);
  assert.deepEqual(demoCompanyDocument(day, 7), demoCompanyDocument(day, 7));
  assert.notDeepEqual(demoCompanyDocument(day, 7), demoCompanyDocument(day, 8));
  const twin = await seedDemo(server.ctx.db, server.config, { seed: 7 });
  const strip = (shifts: Shift[]) => shifts.map((s) => [s.date, s.startsAt, s.endsAt, s.category, s.userId === null, s.breakMinutes, s.note]);
  const path = `/company/timetable?from=${T(-8)}&to=${T(38)}&limit=1000`;
  const mine = await walk<Shift>(server.baseUrl, token, path);
  const theirs = await walk<Shift>(server.baseUrl, await tokenFor(twin), path);
  assert.deepEqual(strip(theirs.items).sort(), strip(mine.items).sort());
});
