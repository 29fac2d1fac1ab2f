import type { Delivery } from '@hitl/protocol';
import { vi } from 'vitest';
import {
  BOT_TOKEN,
  type FakeMessage,
  type FakeSlack,
  SIGNING_SECRET,
  signedRequest,
} from '../src/testing/fake-slack.js';
import { body, type TestNode } from './harness.js';

/** The node's Slack configuration, pointed at the fake. */
export const slackEnv = (fake: FakeSlack) => ({
  HITL_SLACK_BOT_TOKEN: BOT_TOKEN,
  HITL_SLACK_SIGNING_SECRET: SIGNING_SECRET,
  HITL_SLACK_API_URL: fake.apiUrl,
});

/** The ids our message controls carry: the inquiry id is every control's value (or its prefix). */
function inquiryOf(message: FakeMessage): string | undefined {
  for (const block of message.blocks) {
    for (const element of block.elements ?? []) {
      const value = element.value ?? element.options?.[0]?.value;
      if (value) return value.split(':')[0];
    }
  }
  return undefined;
}

/** The message the fake holds for a question (by words of it), once it is posted. */
export function postedMessage(
  fake: FakeSlack,
  words: string,
  channel?: string,
): Promise<FakeMessage & { inquiryId: string }> {
  return vi.waitFor(
    () => {
      const message = [...fake.messages.values()].find(
        (m) => m.text.includes(words) && (channel === undefined || m.channel === channel),
      );
      const inquiryId = message && inquiryOf(message);
      if (!message || !inquiryId) throw new Error(`no Slack message with "${words}" yet`);
      return Object.assign(message, { inquiryId });
    },
    { timeout: 10_000, interval: 20 },
  );
}

/** POSTs a signed interaction to a node's `/slack/interactions`. */
export function interact(
  node: TestNode,
  payload: unknown,
  options?: { secret?: string; timestamp?: number },
) {
  return fetch(`${node.url}/slack/interactions`, signedRequest(payload, options));
}

/** The Slack deliveries ops read for an inquiry, once `ready` holds for them. */
export async function slackDeliveries(
  node: TestNode,
  inquiryId: string,
  ready: (items: Delivery[]) => boolean,
): Promise<Delivery[]> {
  const token = await node.token('ops', 'ops');
  return vi.waitFor(
    async () => {
      const page = await body<{ items: Delivery[] }>(
        await node.rest(`/api/inquiries/${inquiryId}/channels`, { token }),
      );
      const items = page.items.filter((d) => d.channel === 'slack');
      if (!ready(items)) throw new Error(`slack deliveries not there yet: ${JSON.stringify(items)}`);
      return items;
    },
    { timeout: 15_000, interval: 50 },
  );
}

/** Whether a message's blocks still offer controls. */
export const hasControls = (blocks: { type: string }[]) => blocks.some((b) => b.type === 'actions');

/** Resolves once no node has Slack work queued or under way (`hitl_slack_jobs 0` on each `/metrics`). */
export async function slackSettled(...nodes: TestNode[]): Promise<void> {
  await vi.waitFor(
    async () => {
      for (const node of nodes) {
        const text = await (await fetch(`${node.url}/metrics`)).text();
        if (!/^hitl_slack_jobs 0$/m.test(text)) throw new Error(`${node.url} still has Slack work`);
      }
    },
    { timeout: 15_000, interval: 50 },
  );
}
