import { GetInquiryInputSchema, InquiryResultSchema, SendInquiryInputSchema } from '@hitl/protocol';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { DescribedTool } from './descriptions.js';

type JsonObjectSchema = Tool['inputSchema'];

/** Plain JSON Schema (no $schema, no refs) so every model vendor accepts it. */
function portable(schema: z.ZodType, io: 'input' | 'output'): JsonObjectSchema {
  const { $schema: _ignored, ...json } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    reused: 'inline',
  });
  return json as JsonObjectSchema;
}

const SCHEMAS = {
  send_inquiry: portable(SendInquiryInputSchema, 'input'),
  get_inquiry: portable(GetInquiryInputSchema, 'input'),
  output: portable(InquiryResultSchema, 'output'),
};

/** `tools/list` for one connection's wording. */
export function toolList(descriptions: Record<DescribedTool, string>): Tool[] {
  return [
    {
      name: 'send_inquiry',
      title: 'Ask the person',
      description: descriptions.send_inquiry,
      inputSchema: SCHEMAS.send_inquiry,
      outputSchema: SCHEMAS.output,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
      // A client that cannot hold a call for the answer asks it as an MCP task instead.
      execution: { taskSupport: 'optional' },
    },
    {
      name: 'get_inquiry',
      title: 'Check on a question',
      description: descriptions.get_inquiry,
      inputSchema: SCHEMAS.get_inquiry,
      outputSchema: SCHEMAS.output,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      // A bounded check on a question; a task is what send_inquiry offers for the long wait.
      execution: { taskSupport: 'forbidden' },
    },
  ];
}
