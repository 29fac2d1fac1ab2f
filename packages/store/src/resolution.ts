import { type Inquiry, isAddressedTo, type Resolution } from '@hitl/protocol';

/** The resolution's own fields only, so stray properties on the caller's object are never stored. */
export function pickResolution(resolution: Resolution): Resolution {
  const { status, answer, resolvedBy, resolvedAt, reason, arguments: args, changed } = resolution;
  const picked: Resolution =
    answer === undefined ? { status, resolvedBy, resolvedAt } : { status, answer, resolvedBy, resolvedAt };
  // What a person added (a reason, an edit): only when present, so most resolutions stay as small.
  if (reason !== undefined) picked.reason = reason;
  if (args !== undefined) picked.arguments = args;
  if (changed !== undefined) picked.changed = changed;
  return picked;
}

/** The inquiry as it reads once `resolution` ended it. */
export function withResolution(inquiry: Inquiry, resolution: Resolution): Inquiry {
  return { ...inquiry, ...pickResolution(resolution) };
}

/**
 * The stored inquiry as a resolve sees it: none when it is missing or, with `addressedTo`, not
 * addressed to that user (the resolve then answers `not_found`, as a read first would have).
 */
export function resolvable(inquiry: Inquiry | undefined, addressedTo?: string): Inquiry | undefined {
  return inquiry && (addressedTo === undefined || isAddressedTo(inquiry, addressedTo)) ? inquiry : undefined;
}
