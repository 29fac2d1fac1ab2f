import type { CallToolRequest, CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { HumanVerdict } from '../approval/ask-human.js';
import type { StandingUse } from '../approval/standing-check.js';
import type { CallDeps } from './call-deps.js';

/**
 * What decides the call that runs: a standing approval that covers it (no one asked), or the
 * person's approval with their edits.
 */

/** The standing approval that covers this exact call (counted), or null: then a person is asked. */
export function standingFor(
  deps: CallDeps,
  userId: string,
  params: CallToolRequest['params'],
): Promise<StandingUse | null> {
  if (!deps.standing) return Promise.resolve(null);
  return deps.standing.use(userId, {
    server: deps.backend.name,
    tool: params.name,
    arguments: params.arguments ?? {},
  });
}

/** The backend tool's input schema, when it has one (the approver's edit form). */
export function schemaOf(deps: CallDeps, tool: string): { inputSchema?: Record<string, unknown> } {
  const schema = deps.backend.inputSchema(tool);
  return schema ? { inputSchema: schema } : {};
}

/** The person's edit of an approved call: the arguments it ran with and the names they changed. */
export interface ApprovedEdit {
  editedArguments: Record<string, unknown>;
  changed: string[];
}

/** The call the approval approved: the asked one, or the asked one with the person's edited arguments. */
export function approvedParams(
  params: CallToolRequest['params'],
  verdict: HumanVerdict,
): { params: CallToolRequest['params']; edit?: ApprovedEdit } {
  const approved = verdict.approved;
  if (!approved || approved.changed.length === 0) return { params };
  return {
    params: { ...params, arguments: approved.arguments },
    edit: { editedArguments: approved.arguments, changed: approved.changed },
  };
}

/**
 * The backend's result for an edited call, told as such: a first text block says the call ran with
 * the person's edits and what changed, and `_meta["hitl/approval"]` carries them (in `_meta`, not in
 * the backend's `structuredContent`, which a declared `outputSchema` may close).
 */
export function withEditNotice(result: CallToolResult, edit: ApprovedEdit): CallToolResult {
  const notice =
    `The person approved this call with their own edits (changed: ${edit.changed.join(', ')}), ` +
    `and it ran with these arguments instead of yours: ${JSON.stringify(edit.editedArguments)}.`;
  return {
    ...result,
    content: [{ type: 'text', text: notice }, ...(result.content ?? [])],
    _meta: { ...result._meta, 'hitl/approval': edit },
  };
}
