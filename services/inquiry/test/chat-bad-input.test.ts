import type { Inquiry } from '@hitl/protocol';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  aborted,
  type ChatNode,
  chatClient,
  type Elicited,
  elicitations,
  postInSession,
  startChatNode,
} from './chat-harness.js';
import { newUser } from './decision-helpers.js';

/** A person's chat with one question held in it, whose elicitation the handler never answers. */
async function heldInChat(node: ChatNode, question = 'Which size?') {
  const user = newUser();
  const token = await node.token(user, 'agent');
  const asked = elicitations();
  asked.answerWith(async (_request, signal) => {
    await aborted(signal);
    return { action: 'cancel' };
  });
  const { client, transport } = await chatClient(node.url, token, { onElicit: asked.handler });
  const call = client.callTool(
    { name: 'send_inquiry', arguments: { question, options: ['S', 'M', 'L'] } },
    CallToolResultSchema,
    { timeout: 30_000 },
  );
  const elicited: Elicited = await asked.next();
  const device = await node.token(user, 'device');
  const inquiryId = async () => {
    const list = (await (
      await fetch(`${node.url}/api/inquiries?status=pending`, {
        headers: { authorization: `Bearer ${device}` },
      })
    ).json()) as { items: Inquiry[] };
    return (list.items[0] as Inquiry).inquiryId;
  };
  return {
    user,
    token,
    session: transport.sessionId as string,
    elicited,
    call,
    client,
    device,
    inquiryId: await inquiryId(),
  };
}

const respondTo = (node: ChatNode, token: string, session: string | undefined, body: unknown) =>
  postInSession(node.url, token, body, session);

const accept = (id: unknown, content: unknown) => ({
  jsonrpc: '2.0',
  id,
  result: { action: 'accept', content },
});

// Every bad response is logged and changes nothing: the inquiry stays pending, the node answers
// 202 (or a 4xx at the door), never a 5xx, and keeps serving.
describe('elicitation responses that must change nothing', () => {
  let node: ChatNode;
  beforeAll(async () => {
    node = await startChatNode();
  });
  afterAll(() => node?.close());

  async function status(device: string, inquiryId: string): Promise<string> {
    const res = await fetch(`${node.url}/api/inquiries/${inquiryId}`, {
      headers: { authorization: `Bearer ${device}` },
    });
    return ((await res.json()) as Inquiry).status;
  }

  /** Posts `body` and expects the status and a new log line saying `said`, the inquiry still pending. */
  async function refused(
    held: Awaited<ReturnType<typeof heldInChat>>,
    post: () => Promise<Response>,
    said: string,
    code = 202,
  ) {
    const before = node.lines.length;
    const res = await post();
    expect(res.status).toBe(code);
    if (said) {
      const line = node.lines.slice(before).find((l) => String(l.msg).includes(said));
      expect(line, `a log line saying "${said}"`).toBeDefined();
    }
    expect(await status(held.device, held.inquiryId)).toBe('pending');
  }

  it("content that does not fit, an unknown id, a forged id, another user's token, a huge content object", async () => {
    const held = await heldInChat(node);
    const other = await heldInChat(node, "Another person's question");
    const { id } = held.elicited;
    await refused(
      held,
      () => respondTo(node, held.token, held.session, accept(id, { answer: 'XL' })),
      'did not fit',
    );
    await refused(
      held,
      () => respondTo(node, held.token, held.session, accept(id, { answer: 'M', extra: 1 })),
      'did not fit',
    );
    await refused(
      held,
      () => respondTo(node, held.token, held.session, accept(id, { size: 'M' })),
      'did not fit',
    );
    await refused(
      held,
      () => respondTo(node, held.token, held.session, accept('hitl-e1.bogus.bogus', { answer: 'M' })),
      'unknown elicitation id',
    );
    await refused(held, () => respondTo(node, held.token, held.session, accept(42, { answer: 'M' })), '');
    // A forged id: the other person's inquiry and user written into this one's id.
    const [kind, payload, mac] = String(id).split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...claims, i: other.inquiryId, u: other.user })).toString(
      'base64url',
    );
    await refused(
      other,
      () => respondTo(node, held.token, held.session, accept(`${kind}.${forged}.${mac}`, { answer: 'M' })),
      'unknown elicitation id',
    );
    await refused(
      other,
      () => respondTo(node, other.token, other.session, accept(`${kind}.${forged}.${mac}`, { answer: 'M' })),
      'unknown elicitation id',
    );
    // The other person's own id, sent with this person's token (and session): not theirs to answer.
    await refused(
      other,
      () => respondTo(node, held.token, held.session, accept(other.elicited.id, { answer: 'M' })),
      "another user's token",
    );
    // This person's id with the other person's token and this person's session: the session is foreign, 404.
    await refused(
      held,
      () => respondTo(node, other.token, held.session, accept(id, { answer: 'M' })),
      'foreign MCP session',
      404,
    );
    // ... and with the other person's own session: still another user's.
    await refused(
      held,
      () => respondTo(node, other.token, other.session, accept(id, { answer: 'M' })),
      "another user's token",
    );
    // A huge content object: under the body limit it does not fit; over it the door refuses it (413).
    const big = { answer: 'M'.repeat(200_000) };
    await refused(held, () => respondTo(node, held.token, held.session, accept(id, big)), 'did not fit');
    const many = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, 'v'.repeat(10)]));
    await refused(held, () => respondTo(node, held.token, held.session, accept(id, many)), 'did not fit');
    await refused(
      held,
      () => respondTo(node, held.token, held.session, accept(id, { answer: 'M'.repeat(300_000) })),
      '',
      413,
    );
    // A JSON-RPC error as the response, a result that is no elicitation result, no session header.
    await refused(
      held,
      () =>
        respondTo(node, held.token, held.session, { jsonrpc: '2.0', id, error: { code: -1, message: 'no' } }),
      'answered the elicitation with an error',
    );
    await refused(
      held,
      () => respondTo(node, held.token, held.session, { jsonrpc: '2.0', id, result: { action: 'sure' } }),
      'did not fit',
    );
    await refused(
      held,
      () => respondTo(node, held.token, undefined, accept(id, { answer: 'M' })),
      'outside the session',
    );
    expect(node.lines.filter((l) => Number(l.level) >= 50)).toEqual([]);

    // The node kept serving: a fitting answer in the chat still wins, and a late one changes nothing.
    expect((await respondTo(node, held.token, held.session, accept(id, { answer: 'L' }))).status).toBe(202);
    expect((await held.call).structuredContent).toMatchObject({ status: 'answered', answer: 'L' });
    expect(await status(other.device, other.inquiryId)).toBe('pending');
    const before = node.lines.length;
    expect((await respondTo(node, held.token, held.session, accept(id, { answer: 'S' }))).status).toBe(202);
    expect(node.lines.slice(before).some((l) => String(l.msg).includes('late elicitation response'))).toBe(
      true,
    );
    expect(await status(held.device, held.inquiryId)).toBe('answered');
    other.call.catch(() => undefined); // its client closes under it
    await Promise.all([held.client.close(), other.client.close()]);
  });
});
