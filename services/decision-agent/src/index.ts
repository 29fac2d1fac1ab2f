export {
  type DecisionAppDeps,
  decisionApp,
  type RunningDecisionServer,
  startDecisionServer,
} from './http/server.js';
export { checkServiceToken, type IsRevoked, requireServiceToken } from './http/service-auth.js';
