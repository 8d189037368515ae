// A test reporter for scripts/test.ts: a run's counts as the default reporter gives them, but without
// the test that scripts/test-together.ts wraps around each file (nesting 0), as one line of JSON.
import type { TestEvent } from 'node:test/reporters';

export default async function* counts(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  const counted = { tests: 0, pass: 0, fail: 0, cancelled: 0, skipped: 0, todo: 0 };
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { data } = event;
    if (data.nesting === 0 || data.details.type === 'suite') continue;
    counted.tests += 1;
    if (data.skip !== undefined) counted.skipped += 1;
    else if (data.todo !== undefined) counted.todo += 1;
    else if (event.type === 'test:pass') counted.pass += 1;
    else if ((event.data.details.error as { failureType?: string }).failureType === 'cancelledByParent') counted.cancelled += 1;
    else counted.fail += 1;
  }
  yield `${JSON.stringify(counted)}\n`;
}
