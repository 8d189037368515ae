// Import documents of a given size (the operator's import takes up to 64 MiB), for measuring what a
// large import costs the event loop: a valid company of many employees and shifts, and the hostile
// shapes a JSON body can take at that size.

/** A valid import document of about `bytes` bytes: 10 departments, 2 shift types, one employee per 20 shifts. */
export function companyOfSize(bytes: number, prefix = 'e'): Buffer {
  const head = {
    departments: Array.from({ length: 10 }, (_, i) => ({ ref: `d${i}`, name: `Department ${i}`, code: `D${i}` })),
    shiftTypes: [{ ref: 'work', name: 'Work', category: 'work', paid: true }, { ref: 'leave', name: 'Leave', category: 'absence', paid: true }],
  };
  const users: string[] = [];
  const shifts: string[] = [];
  // The head, the two section names and room for one more user and shift.
  let length = JSON.stringify(head).length + 40 + 600;
  for (let i = 0; length < bytes; i += 1) {
    if (i % 20 === 0) {
      const u = i / 20;
      const user = JSON.stringify({ ref: `${prefix}${u}`, employeeNumber: `N${u}`, firstName: 'Firstname', lastName: `Lastname ${u}`, email: `${prefix}${u}@example.com`, employmentStart: '2024-01-01', departmentRefs: [`d${u % 10}`], badgeId: `${prefix}B${u}`, timeclockActive: true });
      users.push(user);
      length += user.length + 1;
    }
    const day = String(1 + (i % 28)).padStart(2, '0');
    const shift = JSON.stringify({ ref: `${prefix}s${i}`, userRef: `${prefix}${Math.floor(i / 20)}`, date: `2026-0${1 + (i % 9)}-${day}`, start: '08:00', end: '16:30', breakMinutes: 30, departmentRef: `d${i % 10}`, shiftTypeRef: 'work', note: 'Opening shift' });
    shifts.push(shift);
    length += shift.length + 1;
  }
  const text = JSON.stringify(head);
  return Buffer.from(`${text.slice(0, -1)},"users":[${users.join(',')}],"shifts":[${shifts.join(',')}]}`);
}

/** `head` + repeated `unit` joined by `separator` + `tail`, as long as it stays under `max` bytes. */
export function filled(head: string, unit: (i: number) => string, separator: string, tail: string, max: number): Buffer {
  const parts: string[] = [];
  let length = head.length + tail.length;
  for (let i = 0; ; i += 1) {
    const next = unit(i);
    if (length + next.length + separator.length > max) break;
    parts.push(next);
    length += next.length + separator.length;
  }
  return Buffer.from(head + parts.join(separator) + tail);
}

/** Empty shifts up to `max` bytes: six problems each (every required field missing), all of them listed. */
export const emptyShifts = (max: number): Buffer => filled('{"shifts":[', () => '{}', ',', ']}', max);

/** The worst bodies of `max` bytes for the import, beside a valid company of that size. */
export function hostileImports(max: number): Record<string, Buffer> {
  return {
    'many keys in the root object': filled('{', (i) => `"k${i}":0`, ',', '}', max),
    'many keys in one shift': filled('{"shifts":[{', (i) => `"k${i}":0`, ',', '}]}', max),
    'many empty shifts': emptyShifts(max),
    'many nulls in a section': filled('{"users":[', () => 'null', ',', ']}', max),
    'one huge string': filled('{"departments":"', () => 'a', '', '"}', max),
    'one huge property name': filled('{"shifts":[{"', () => 'a', '', '":1}]}', max),
    'one huge ref, twice': filled('{"departments":[{"ref":"', () => 'a', '', '","deleted":true},{"ref":"x"}]}', max),
    'deep nesting in every shift': filled('{"shifts":[', () => `{"note":${'['.repeat(60)}${']'.repeat(60)}}`, ',', ']}', max),
    'escapes everywhere': filled('{"departments":[{"ref":"', () => '\\u0041', '', '","name":"x","code":"y"}]}', max),
  };
}
