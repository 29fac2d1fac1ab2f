export { type FakeChatModel, type FakeReply, startFakeChatModel } from './fake-chat-model.js';
export { approval, inquiry } from './fixtures.js';
