export { type HostPolicy, hostOriginProblem } from './host-guard.js';
export { type LinkChannel, LinkChannelSchema, type LinkClaims, LinkTokens } from './link-tokens.js';
export {
  type AuthResult,
  authorize,
  bearerToken,
  type RevocationCheck,
  type TokenOptions,
  TokenService,
  tokenFingerprint,
} from './tokens.js';
