export { type HostPolicy, hostOriginProblem } from './host-guard.js';
