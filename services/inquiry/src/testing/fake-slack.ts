import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/*
 * A local stand-in for Slack, for tests: a real HTTP server speaking the Web API's request and
 * response shapes for the methods the node calls (form-encoded arguments, `Authorization: Bearer`,
 * `{ok, ...}` replies, `429` with `Retry-After` when told to), and the other direction: interaction
 * payloads built as Slack builds them (`block_actions`, `view_submission`), form-encoded and signed
 * with the signing secret (`v0` HMAC-SHA256 over `v0:<timestamp>:<body>`).
 */

export const BOT_TOKEN = 'xoxb-test-0000-bot-token';
export const SIGNING_SECRET = 'test-signing-secret-0123456789';
export const TEAM_ID = 'T0TEST';

/** One Web API call the fake received, with its arguments decoded (`blocks`, `view` parsed). */
export interface SlackCall {
  method: string;
  args: Record<string, unknown>;
  status: number;
}

/** A message as the fake keeps it: what was posted, and each update since. */
export interface FakeMessage {
  channel: string;
  ts: string;
  text: string;
  blocks: SlackBlock[];
  updates: { text: string; blocks: SlackBlock[] }[];
}

export type SlackBlock = {
  type: string;
  block_id?: string;
  elements?: SlackElement[];
  text?: { text: string };
} & Record<string, unknown>;
export type SlackElement = {
  type: string;
  action_id: string;
  value?: string;
  options?: { text: { text: string }; value: string }[];
} & Record<string, unknown>;

export interface FakeSlack {
  /** `HITL_SLACK_API_URL` for the nodes: ends in `/api/`, as Slack's does. */
  apiUrl: string;
  calls: SlackCall[];
  messages: Map<string, FakeMessage>;
  /** The next `times` calls of `method` answer 429 with `Retry-After: <seconds>`. */
  rateLimit(method: string, seconds: number, times?: number): void;
  /** The next `times` calls of `method` answer `{ok: false, error}`. */
  failWith(method: string, error: string, times?: number): void;
  /** Calls of one method so far. */
  callsOf(method: string): SlackCall[];
  close(): Promise<void>;
}

export async function startFakeSlack(): Promise<FakeSlack> {
  const calls: SlackCall[] = [];
  const messages = new Map<string, FakeMessage>();
  const limited = new Map<string, { seconds: number; times: number }>();
  const failing = new Map<string, { error: string; times: number }>();
  let seq = 0;
  const server: Server = createServer((req, res) => {
    void handle(req, res);
  });

  const reply = (
    res: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    res.end(JSON.stringify(body));
  };

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const method = (req.url ?? '').replace(/^\/api\//, '').split('?')[0] ?? '';
    const args: Record<string, unknown> = Object.fromEntries(
      new URLSearchParams(Buffer.concat(chunks).toString()),
    );
    for (const key of ['blocks', 'view'])
      if (typeof args[key] === 'string') args[key] = JSON.parse(args[key] as string);
    const limit = limited.get(method);
    if (limit && limit.times > 0) {
      limit.times--;
      calls.push({ method, args, status: 429 });
      return reply(res, 429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(limit.seconds) });
    }
    calls.push({ method, args, status: 200 });
    if (req.headers.authorization !== `Bearer ${BOT_TOKEN}`)
      return reply(res, 200, { ok: false, error: 'invalid_auth' });
    const failure = failing.get(method);
    if (failure && failure.times > 0) {
      failure.times--;
      return reply(res, 200, { ok: false, error: failure.error });
    }
    switch (method) {
      case 'conversations.open':
        return reply(res, 200, { ok: true, channel: { id: `D${String(args.users).slice(1)}` } });
      case 'chat.postMessage': {
        const ts = `${Math.floor(Date.now() / 1000)}.${String(++seq).padStart(6, '0')}`;
        const channel = String(args.channel);
        messages.set(ts, {
          channel,
          ts,
          text: String(args.text),
          blocks: args.blocks as SlackBlock[],
          updates: [],
        });
        return reply(res, 200, { ok: true, channel, ts, message: { type: 'message', text: args.text, ts } });
      }
      case 'chat.update': {
        const message = messages.get(String(args.ts));
        if (!message || message.channel !== args.channel)
          return reply(res, 200, { ok: false, error: 'message_not_found' });
        message.updates.push({ text: String(args.text), blocks: args.blocks as SlackBlock[] });
        return reply(res, 200, { ok: true, channel: message.channel, ts: message.ts, text: args.text });
      }
      case 'views.open':
        return reply(res, 200, { ok: true, view: { id: `V${++seq}`, ...(args.view as object) } });
      case 'chat.postEphemeral':
        return reply(res, 200, {
          ok: true,
          message_ts: `${Math.floor(Date.now() / 1000)}.${String(++seq).padStart(6, '0')}`,
        });
      default:
        return reply(res, 200, { ok: false, error: 'unknown_method' });
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    apiUrl: `http://127.0.0.1:${port}/api/`,
    calls,
    messages,
    rateLimit: (method, seconds, times = 1) => limited.set(method, { seconds, times }),
    failWith: (method, error, times = 1) => failing.set(method, { error, times }),
    callsOf: (method) => calls.filter((call) => call.method === method),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A Slack user as payloads name them. */
const userOf = (member: string) => ({
  id: member,
  username: member.toLowerCase(),
  name: member.toLowerCase(),
  team_id: TEAM_ID,
});

/**
 * The `block_actions` payload Slack sends when `member` clicks the element `actionId` of `message`
 * (for a select menu, choosing the option with `optionValue`).
 */
export function clickPayload(message: FakeMessage, member: string, actionId: string, optionValue?: string) {
  const block = message.blocks.find(
    (b) => b.type === 'actions' && b.elements?.some((e) => e.action_id === actionId),
  );
  const element = block?.elements?.find((e) => e.action_id === actionId);
  if (!block || !element) throw new Error(`no element ${actionId} in the message`);
  const chosen =
    optionValue === undefined ? undefined : element.options?.find((o) => o.value === optionValue);
  const action =
    element.type === 'static_select'
      ? {
          type: 'static_select',
          action_id: actionId,
          block_id: block.block_id,
          selected_option: chosen,
          placeholder: element.placeholder,
          action_ts: '1700000000.000100',
        }
      : { ...element, block_id: block.block_id, action_ts: '1700000000.000100' };
  return {
    type: 'block_actions',
    user: userOf(member),
    api_app_id: 'A0TEST',
    token: 'legacy-verification-token',
    container: { type: 'message', message_ts: message.ts, channel_id: message.channel, is_ephemeral: false },
    trigger_id: `${Date.now()}.1234.abcdef0123456789`,
    team: { id: TEAM_ID, domain: 'test' },
    enterprise: null,
    is_enterprise_install: false,
    channel: { id: message.channel, name: 'privategroup' },
    message: {
      type: 'message',
      ts: message.ts,
      text: message.text,
      blocks: message.blocks,
      bot_id: 'B0TEST',
    },
    state: { values: {} },
    response_url: `https://hooks.slack.com/actions/${TEAM_ID}/1/abc`,
    actions: [action],
  };
}

/** The `view_submission` payload Slack sends when `member` submits `view` with `values` filled in. */
export function submitPayload(
  view: Record<string, unknown>,
  member: string,
  values: Record<string, Record<string, unknown>>,
) {
  return {
    type: 'view_submission',
    team: { id: TEAM_ID, domain: 'test' },
    user: userOf(member),
    api_app_id: 'A0TEST',
    token: 'legacy-verification-token',
    trigger_id: `${Date.now()}.1234.fedcba9876543210`,
    view: {
      id: 'V0TEST',
      team_id: TEAM_ID,
      type: 'modal',
      blocks: view.blocks,
      private_metadata: view.private_metadata,
      callback_id: view.callback_id,
      state: { values },
      hash: '1700000000.abcdef',
      title: view.title,
      clear_on_close: false,
      notify_on_close: false,
      close: view.close,
      submit: view.submit,
      previous_view_id: null,
      root_view_id: 'V0TEST',
      app_id: 'A0TEST',
      external_id: '',
      app_installed_team_id: TEAM_ID,
      bot_id: 'B0TEST',
    },
    response_urls: [],
    is_enterprise_install: false,
    enterprise: null,
  };
}

/** The form body and headers of an interaction request, signed at `timestamp` (seconds) with `secret`. */
export function signedRequest(payload: unknown, options: { secret?: string; timestamp?: number } = {}) {
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  return signedBody(body, options);
}

export function signedBody(
  body: string,
  { secret = SIGNING_SECRET, timestamp = Math.floor(Date.now() / 1000) } = {},
) {
  const signature = `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
  return {
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': String(timestamp),
      'x-slack-signature': signature,
    },
  };
}
