export {
  checkTarget,
  checkTargetCanonical,
  checkTargetText,
  looksLikeCredential,
  defaultLookupAll,
  type CheckedTarget,
  type LookupAll,
  type ResolvedAddress,
  type TargetPolicy,
} from './check-target.js';
export { isForbiddenAddress } from '@kw/platform-net';
export { parseRetryAfter } from './retry-after.js';
export { sendToTarget, type SendFailure, type SendRequest, type SendResult } from './send-to-target.js';
export { TargetConnections, type TargetConnectionsOptions } from './target-connections.js';
export { TargetRefusedError, type TargetRefusalReason } from './target-refused.error.js';
