import { test } from 'node:test';
import assert from 'node:assert/strict';
import { doubleToHundredths, fromHundredths, toHundredths } from '../../src/inbound/decimal.ts';
import { parseJsonKeepingNumbers, keptNumberText } from '../../src/inbound/exact-json.ts';
import { measureJson } from '../../src/platform/json-body.ts';

test('a JSON number text becomes exact hundredths', () => {
  const cases: [string, number][] = [
    ['0', 0], ['-0', 0], ['12', 1200], ['12.3', 1230], ['12.3000', 1230], ['0.1', 10], ['0.07', 7],
    ['-0.07', -7], ['1.5e2', 15000], ['1.25E+1', 1250], ['125e-2', 125], ['10000000000000', 1_000_000_000_000_000],
  ];
  for (const [text, hundredths] of cases) assert.deepEqual(toHundredths(text), { ok: true, value: hundredths }, text);
});

test('more than 2 significant decimals, or out of range, is refused', () => {
  for (const text of ['12.345', '12.345000', '0.001', '1.0000000000000001', '1e-3', '0.30000000000000004']) {
    assert.deepEqual(toHundredths(text), { ok: false, message: 'must have at most 2 decimals' }, text);
  }
  for (const text of ['10000000000000.01', '1e14', '1e400']) assert.equal(toHundredths(text).ok, false, text);
  assert.deepEqual(toHundredths('abc'), { ok: false, message: 'must be a number' });
});

test('hundredths are written back as the shortest JSON number', () => {
  assert.equal(JSON.stringify([fromHundredths(10), fromHundredths(20), fromHundredths(1234567890199), fromHundredths(-7)]), '[0.1,0.2,12345678901.99,-0.07]');
});

test('the parser keeps the text of each number a double cannot hold; the others read back as the same decimal', () => {
  const parse = (text: string) => parseJsonKeepingNumbers(text, measureJson(text));
  const body = parse('{"items":[{"amount":1.0000000000000001,"hours":7.50,"big":12345678901234567.89,"exp":1.5e1,"plain":-12.34}]}') as { items: Record<string, number>[] };
  const item = body.items[0];
  assert.ok(item);
  assert.equal(item.amount, 1);
  assert.equal(keptNumberText(item, 'amount'), '1.0000000000000001');
  assert.equal(keptNumberText(item, 'big'), '12345678901234567.89');
  assert.equal(keptNumberText(item, 'exp'), '1.5e1');
  assert.equal(item.exp, 15, 'a kept number is a number again');
  assert.equal(keptNumberText(item, 'hours'), undefined, '7.50 is not kept: 7.5, its shortest form, is the same decimal');
  assert.equal(item.hours, 7.5);
  assert.equal(keptNumberText(item, 'plain'), undefined);
  assert.equal(keptNumberText({ amount: 0.5 }, 'amount'), undefined, 'nothing kept for a value not parsed here');
  assert.deepEqual(parse('["\\u0000:1e5", 1e5]'), ['\u0000:1e5', 100000], 'a client string that looks like a marker stays a string');
  assert.throws(() => parseJsonKeepingNumbers('{"__proto__":{"x":1e5}}', measureJson('{"__proto__":{"x":1e5}}'), (text) => JSON.parse(text, (key, value: unknown) => {
    if (key === '__proto__') throw new SyntaxError('no');
    return value;
  })), SyntaxError);
});

test('a double reads as the same hundredths as its shortest text, on the quick path or not', () => {
  const values = [0, -0, 0.1, 0.2, 0.1 + 0.2, 1.005, 1.15, 2.675, -0.07, 12.3, 12.34, 12.345, 1e-3, 5e-324, 0.01, 0.005, 0.015, 1234567.89, 99999999999.99, 1e13, 1e13 + 0.01, 1e13 - 0.01, -1e13, 1e14, 1e21, 123456789012.34, 4503599627370.49];
  for (let i = 0; i < 20_000; i++) values.push(Math.round((Math.random() - 0.5) * 2e15) / 100, (Math.random() - 0.5) * 10 ** Math.floor(Math.random() * 16), Math.round(Math.random() * 1e6) / 1000);
  for (const value of values) assert.deepEqual(doubleToHundredths(value), toHundredths(String(value)), String(value));
});
