// The Workforce Scheduling Service client (`@wfs/client`). In a checkout, import it by relative path:
//   import { WfsClient } from './packages/client/src/index.ts';
export { WfsClient, type WfsClientOptions, type TimeclockEventInput, type Query, type CollectionPath, type CollectionQuery, type ItemOf, type RevenueItem, type WageBudgetItem } from './client.ts';
export { ApiError, TokenError, NetworkError, type Problem } from './errors.ts';
export { TokenSession, decodeJwtClaims, type TokenResponse } from './tokens.ts';
export { ChangeFeed, type Change, type ChangePage, type FollowOptions } from './changes.ts';
export { verifyWebhook, WebhookVerificationError, type WebhookHeaders, type WebhookMessage, type VerifyOptions } from './webhooks.ts';
export { TimeclockQueue, type TimeclockQueueOptions } from './timeclock-queue.ts';
export { DEFAULT_RETRY, type RetryPolicy } from './http.ts';
export type { paths, operations } from './schema.ts';
