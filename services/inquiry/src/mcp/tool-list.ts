import { GetInquiryInputSchema, InquiryResultSchema, SendInquiryInputSchema } from '@hitl/protocol';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { AnswerInquiryInputSchema } from '../chat/card-answer.js';
import { CARD_TOOL_META } from '../chat/inquiry-card.js';
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
  answer_inquiry: portable(AnswerInquiryInputSchema, 'input'),
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
      // Hosts that render MCP Apps show the inquiry card beside the call (chat/inquiry-card.ts).
      _meta: CARD_TOOL_META,
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
      _meta: CARD_TOOL_META,
    },
    {
      name: 'answer_inquiry',
      title: 'Answer from the inquiry card',
      description:
        'Used only by the inquiry card shown to the person, with the card token it was given. ' +
        'Do not call this yourself: the person answers, not you.',
      inputSchema: SCHEMAS.answer_inquiry,
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
      execution: { taskSupport: 'forbidden' },
      // Visible to the card (the app) only; hosts keep it from the model.
      _meta: { ui: { visibility: ['app'] } },
    },
  ];
}
