import { randomUUID } from 'node:crypto';
import type { DeviceAck, DeviceInquiry, InquiryResult } from '@hitl/protocol';
import type { TestDevice, TestNode } from './harness.js';

/** Short tiers: device 1 s, service 2 s, client 4 s (a decision must be written by 2.8 s). */
export const SHORT_TIERS = {
  HITL_DEVICE_TIMEOUT_MS: '1000',
  HITL_SERVICE_TIMEOUT_MS: '2000',
  HITL_CLIENT_TIMEOUT_MS: '4000',
};

export const newUser = () => `u-${randomUUID().slice(0, 8)}`;

export interface ToolReply {
  structured: InquiryResult;
  text: string;
  isError: boolean;
}

function reply(result: unknown): ToolReply {
  const r = result as { structuredContent: InquiryResult; content: { text: string }[]; isError?: boolean };
  return { structured: r.structuredContent, text: r.content[0]?.text ?? '', isError: r.isError === true };
}

export interface Asked {
  device: TestDevice;
  pushed: DeviceInquiry;
  result: Promise<ToolReply>;
}

/** A user with one device asks `args` through a real MCP call; resolves once the device has it. */
export async function ask(t: TestNode, args: Record<string, unknown>, user = newUser()): Promise<Asked> {
  const device = await t.device(user, 'phone');
  await device.synced;
  const client = await t.mcp(user);
  const result = client.callTool({ name: 'send_inquiry', arguments: args }).then(reply);
  const pushed = await device.nextNew();
  return { device, pushed, result };
}

/** The person declines on their device; returns the tool result the agent got. */
export async function refuse(
  t: TestNode,
  args: Record<string, unknown>,
): Promise<ToolReply & { ack: DeviceAck }> {
  const { device, pushed, result } = await ask(t, args);
  const ack = await device.emit<DeviceAck>('inquiry:refuse', { inquiryId: pushed.inquiryId });
  return { ...(await result), ack };
}

/** The device's countdown runs out and it reports the timeout (tier 1). */
export async function deviceTimesOut(t: TestNode, args: Record<string, unknown>): Promise<ToolReply> {
  const { device, pushed, result } = await ask(t, args);
  const wait = pushed.deadlines.deviceAt - pushed.serverTime;
  // time itself is under test: the device deadline (tier 1) comes.
  await new Promise((r) => setTimeout(r, Math.max(0, wait)));
  await device.emit<DeviceAck>('inquiry:timeout', { inquiryId: pushed.inquiryId });
  return result;
}

/** Nobody has a device open: the service timer ends the wait (tier 2). */
export async function serviceTimesOut(t: TestNode, args: Record<string, unknown>): Promise<ToolReply> {
  const client = await t.mcp(newUser());
  return reply(await client.callTool({ name: 'send_inquiry', arguments: args }));
}

/** Asserts the wording can never pass for a person's answer. */
export const MACHINE_WORDS = /This is NOT a human answer: an automatic fallback/;
