export { connectDevice, type TestDevice } from './device.js';
