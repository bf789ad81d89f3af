// @checkout/sdk: the TypeScript client of the Payment Service API v1 (README.md).
export { createClient, type ClientOptions, type PaymentClient } from './client.js';
export { ApiError } from './errors.js';
export { API_VERSION } from './generated/version.js';
export { type Page, PageIterator } from './pagination.js';
export { DEFAULT_RETRY_POLICY, IN_FLIGHT, type RetryPolicy } from './retry.js';
export { RETURN_TOLERANCE_SECONDS, type VerifiedReturn, type VerifyReturnOptions, verifyReturnUrl } from './returns.js';
export type * from './types.js';
export {
  type HeadersLike,
  type VerifyWebhookOptions,
  verifyWebhook,
  WEBHOOK_TOLERANCE_SECONDS,
  type WebhookEvent,
  type WebhookEventOf,
  type WebhookEventType,
  type WebhookVerificationFailure,
  WebhookVerificationError,
} from './webhooks.js';
