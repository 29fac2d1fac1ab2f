import type { Inquiry, Resolution } from '@hitl/protocol';

/** The resolution's own fields only, so stray properties on the caller's object are never stored. */
export function pickResolution(resolution: Resolution): Resolution {
  const { status, answer, resolvedBy, resolvedAt } = resolution;
  return answer === undefined
    ? { status, resolvedBy, resolvedAt }
    : { status, answer, resolvedBy, resolvedAt };
}

/** The inquiry as it reads once `resolution` ended it. */
export function withResolution(inquiry: Inquiry, resolution: Resolution): Inquiry {
  return { ...inquiry, ...pickResolution(resolution) };
}
