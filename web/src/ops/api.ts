import {
  type DecisionRecord,
  DecisionRecordSchema,
  type Delivery,
  DeliverySchema,
  type DeviceDelivery,
  DeviceDeliverySchema,
  ErrorBodySchema,
  type Inquiry,
  InquirySchema,
  type Page,
} from '@hitl/protocol';

/** The part of a zod schema this module uses. */
interface Schema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false };
}

/** A REST call that did not answer 2xx, with the server's `{error: {code, message}}` when it sent one. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Each entry checked at this boundary; a malformed one is skipped, not fatal. */
function parsed<T>(list: unknown, schema: Schema<T>): T[] {
  return (Array.isArray(list) ? list : []).flatMap((item) => {
    const result = schema.safeParse(item);
    return result.success ? [result.data] : [];
  });
}

async function getPage<T>(path: string, token: string, schema: Schema<T>, signal?: AbortSignal) {
  const response = await fetch(path, { headers: { Authorization: `Bearer ${token}` }, signal });
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok) throw apiError(response, body);
  const page = body as Partial<Page<unknown>> | null;
  return {
    items: parsed(page?.items, schema),
    nextCursor: typeof page?.nextCursor === 'string' ? page.nextCursor : null,
    raw: page?.items?.length ?? 0,
  };
}

function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    if (value !== undefined && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** Up to `maxPages` pages of 200, newest first. */
async function collect<T>(
  path: string,
  params: Record<string, string | undefined>,
  token: string,
  schema: Schema<T>,
  maxPages: number,
  signal?: AbortSignal,
): Promise<{ items: T[]; complete: boolean; skipped: number }> {
  const items: T[] = [];
  let cursor: string | undefined;
  let skipped = 0;
  for (let page = 0; page < maxPages; page++) {
    const result = await getPage(`${path}${query({ ...params, limit: 200, cursor })}`, token, schema, signal);
    items.push(...result.items);
    skipped += result.raw - result.items.length;
    if (!result.nextCursor) return { items, complete: true, skipped };
    cursor = result.nextCursor;
  }
  return { items, complete: false, skipped };
}

/** Every user's inquiries (ops), any status; `user` narrows to one user. */
export function listInquiries(token: string, filters: { user?: string }, signal?: AbortSignal) {
  return collect<Inquiry>(
    '/api/inquiries',
    { status: 'all', user: filters.user },
    token,
    InquirySchema,
    10,
    signal,
  );
}

export interface DecisionFilters {
  strategy?: string;
  outcome?: string;
  user?: string;
}

/** The decision audit log, or `null` when this server does not offer it (404). */
export async function listDecisions(
  token: string,
  filters: DecisionFilters,
  signal?: AbortSignal,
): Promise<{ items: DecisionRecord[]; complete: boolean; skipped: number } | null> {
  try {
    return await collect('/api/decisions', { ...filters }, token, DecisionRecordSchema, 5, signal);
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || error.status === 405)) return null;
    throw error;
  }
}

/** What reached out for one inquiry: every channel's messages and every device socket it was handed to. */
export interface Channels {
  deliveries: Delivery[];
  /** Newest first; empty from a server that does not record them. */
  devices: DeviceDelivery[];
}

/**
 * `GET /api/inquiries/:id/channels`: what every channel (push, mail, webhooks) did for one inquiry
 * (`items`) and which devices got it live (`devices`); `null` when the server has no such list.
 */
export async function listChannels(
  token: string,
  inquiryId: string,
  signal?: AbortSignal,
): Promise<Channels | null> {
  const response = await fetch(`/api/inquiries/${encodeURIComponent(inquiryId)}/channels`, {
    headers: { Authorization: `Bearer ${token}` },
    signal,
  });
  if (response.status === 404 || response.status === 405) return null;
  const body = (await response.json().catch(() => null)) as { items?: unknown; devices?: unknown } | null;
  if (!response.ok) throw apiError(response, body);
  return {
    deliveries: parsed(body?.items, DeliverySchema),
    devices: parsed(body?.devices, DeviceDeliverySchema),
  };
}

/** One inquiry of any user (ops); `null` when it does not exist (or its retention ended). */
export async function getInquiry(
  token: string,
  inquiryId: string,
  signal?: AbortSignal,
): Promise<Inquiry | null> {
  const response = await fetch(`/api/inquiries/${encodeURIComponent(inquiryId)}`, {
    headers: { Authorization: `Bearer ${token}` },
    signal,
  });
  if (response.status === 404) return null;
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok) throw apiError(response, body);
  const parsed = InquirySchema.safeParse(body);
  if (!parsed.success)
    throw new ApiError(response.status, 'invalid_response', 'the server sent a malformed inquiry');
  return parsed.data;
}

/** Ends a pending inquiry as cancelled (ops); the server audits who did it. */
export async function cancelInquiry(token: string, inquiryId: string): Promise<void> {
  const response = await fetch(`/api/inquiries/${encodeURIComponent(inquiryId)}/cancel`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}` },
  });
  if (response.ok) return;
  throw apiError(response, await response.json().catch(() => null));
}

function apiError(response: Response, body: unknown): ApiError {
  const error = ErrorBodySchema.safeParse(body);
  const { code, message } = error.success
    ? error.data.error
    : { code: 'http', message: `${response.status} ${response.statusText}` };
  return new ApiError(response.status, code, message);
}
