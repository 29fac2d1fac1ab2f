export { connectDevice, type TestDevice } from './device.js';
export { postMcp } from './post-mcp.js';
