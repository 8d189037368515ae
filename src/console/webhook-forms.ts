// The webhook pages' forms in words: the message types ticked, the replay period's times (UTC, as the
// console shows every time), and what the endpoint's page says after an action (`?done=`).
import { badRequest } from '../platform/errors.ts';
import { CHANGE_TYPES } from '../webhooks/schemas.ts';

/** The boxes ticked: none means every type (as `types` absent does in the API); an unknown one is a 400. */
export function checkedTypes(value: string | string[] | undefined): string[] | undefined {
  const types = value === undefined ? [] : [value].flat();
  const unknown = types.find((type) => !CHANGE_TYPES.includes(type));
  if (unknown !== undefined) throw badRequest('validation_failed', `Unknown message type ${unknown}.`, [{ path: '/types', message: `has an unknown type ${unknown}` }]);
  return types.length === 0 ? undefined : [...new Set(types)];
}

/** A `datetime-local` value is read as UTC, like every time the console shows; a full instant as written. */
export function instant(value: string | undefined): string {
  const text = (value ?? '').trim();
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(text) ? `${text}Z` : text;
}

type Done = { done?: string; message?: string; queued?: number };

/** What the endpoint's page says after an action (`?done=`); nothing for an unknown one. */
export function noticeOf({ done, message, queued = 0 }: Done): string | undefined {
  switch (done) {
    case 'disabled': return 'The endpoint is disabled: messages wait until it is enabled again.';
    case 'enabled': return 'The endpoint is enabled: delivery resumes with the first undelivered message.';
    case 'test': return `A test message${message ? ` (${message})` : ''} is queued; its attempts appear in the delivery log.`;
    case 'retried': return `Message ${message ?? ''} is sent again.`;
    case 'replayed': return `${queued} message${queued === 1 ? '' : 's'} of the period queued again.`;
    default: return undefined;
  }
}
