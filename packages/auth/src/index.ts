export {
  type CardClaims,
  ChatTokens,
  type ElicitationClaims,
  sessionTag,
} from './chat-tokens.js';
export { type HostPolicy, hostOriginProblem } from './host-guard.js';
export { type LinkChannel, LinkChannelSchema, type LinkClaims, LinkTokens } from './link-tokens.js';
export {
  addressProblem,
  BlockedTargetError,
  guardedLookup,
  hostProblem,
  isListedHost,
} from './outbound-guard.js';
export { type OutboundPostOptions, type OutboundReply, outboundPost } from './outbound-post.js';
export {
  type AuthResult,
  authorize,
  bearerToken,
  type RevocationCheck,
  type TokenOptions,
  TokenService,
  tokenFingerprint,
} from './tokens.js';
