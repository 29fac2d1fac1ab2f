import {
  clickPayload,
  type FakeMessage,
  type FakeSlack,
  signedRequest,
  startFakeSlack,
} from '@hitl/inquiry/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';

/** The ways a person answers that the `paths` scenario compares. */
export type AnswerPath = 'device' | 'chat' | 'slack';

/**
 * An official MCP SDK client that declares form elicitation (so the node asks a held `send_inquiry`
 * in this chat) and accepts every elicitation with `reply(message)` as the `answer` field.
 */
export async function chatAgent(
  url: string,
  bearer: string,
  reply: (message: string) => string,
): Promise<Client> {
  const client = new Client(
    { name: 'hitl-bench-chat', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler(ElicitRequestSchema, async (request): Promise<ElicitResult> => {
    const answer = reply(request.params.message);
    return { action: 'accept', content: { answer } };
  });
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${bearer}` } },
  });
  await client.connect(transport);
  return client;
}

/** The local fake of Slack's Web API, and a wait for the message a question was posted in. */
export interface SlackSide {
  fake: FakeSlack;
  posted(question: string): Promise<FakeMessage>;
}

/** Starts the fake; `posted` resolves when the node's `chat.postMessage` for a question arrives. */
export async function openSlackFake(): Promise<SlackSide> {
  const fake = await startFakeSlack();
  const waiting = new Map<string, (message: FakeMessage) => void>();
  const byQuestion = new Map<string, FakeMessage>();
  // The fake keeps messages in a Map: its `set` is where a posted message first shows.
  const set = fake.messages.set.bind(fake.messages);
  fake.messages.set = (ts, message) => {
    const question = /paths \w+ q\d+/.exec(message.text)?.[0];
    if (question) {
      const waiter = waiting.get(question);
      waiting.delete(question);
      if (waiter) waiter(message);
      else byQuestion.set(question, message);
    }
    return set(ts, message);
  };
  return {
    fake,
    posted: (question) => {
      const seen = byQuestion.get(question);
      byQuestion.delete(question);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => waiting.set(question, resolve));
    },
  };
}

/** The signed interaction request of `member` clicking the first option of `message`. */
export function slackClick(message: FakeMessage, member: string) {
  return signedRequest(clickPayload(message, member, 'hitl.option.0'));
}
