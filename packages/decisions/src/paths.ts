/** Where the decision agent's HTTP service (`hitl decide`) takes a decision request. */
export const DECIDE_PATH = '/v1/decide';
/** Where it takes a suggestion request. */
export const SUGGEST_PATH = '/v1/suggest';
