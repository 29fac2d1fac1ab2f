export { type FakeChatModel, type FakeReply, startFakeChatModel } from './fake-chat-model.js';
