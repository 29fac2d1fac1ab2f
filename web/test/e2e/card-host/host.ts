import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { CallToolRequest, CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/*
 * A small MCP Apps host for the card's browser test: ext-apps' own host side (`AppBridge`) in a
 * page, the card in a sandboxed frame (scripts only, no same origin, as hosts render it), and the
 * bridge's tool calls handed to a real MCP client in the test process (`hostCallTool`).
 */

interface HostWindow {
  hostCallTool(params: CallToolRequest['params']): Promise<CallToolResult>;
  hostOpenLink(url: string): Promise<void>;
  startCard(html: string, input: Record<string, unknown>, result: CallToolResult): Promise<void>;
}

const host = window as unknown as HostWindow;

host.startCard = async (html, input, result) => {
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.title = 'Inquiry card';
  frame.style.width = '100%';
  frame.style.height = '640px';
  document.body.append(frame);
  const view = frame.contentWindow as Window;
  const bridge = new AppBridge(
    null,
    { name: 'Card test host', version: '1.0.0' },
    { openLinks: {}, serverTools: {} },
  );
  bridge.oncalltool = (params) => host.hostCallTool(params);
  bridge.onopenlink = async ({ url }) => {
    await host.hostOpenLink(url);
    return {};
  };
  bridge.oninitialized = () => {
    void bridge.sendToolInput({ arguments: input });
    void bridge.sendToolResult(result);
  };
  await bridge.connect(new PostMessageTransport(view, view));
  frame.srcdoc = html;
};
