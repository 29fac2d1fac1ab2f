export { connectDevice, type TestDevice } from './device.js';
export {
  BOT_TOKEN,
  clickPayload,
  type FakeMessage,
  type FakeSlack,
  SIGNING_SECRET,
  type SlackCall,
  signedBody,
  signedRequest,
  startFakeSlack,
  submitPayload,
} from './fake-slack.js';
export { postMcp } from './post-mcp.js';
export { type PageContext, SoftwareAuthenticator } from './software-authenticator.js';
