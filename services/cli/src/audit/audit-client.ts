import {
  AUDIT_PAGE_MAX,
  AuditRecordsPageSchema,
  type ChainEntry,
  type SignedCheckpoint,
  SignedCheckpointSchema,
} from '@hitl/protocol';

/** A node that could not be read (HTTP error, a body that is not the contract's shape). */
export class AuditReadError extends Error {
  override readonly name = 'AuditReadError';
}

async function getJson(url: URL, token: string): Promise<{ text: string; json: unknown }> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const text = await response.text();
  if (!response.ok)
    throw new AuditReadError(`${url.pathname}: HTTP ${response.status} ${text.slice(0, 200)}`);
  try {
    return { text, json: JSON.parse(text) };
  } catch {
    throw new AuditReadError(`${url.pathname}: the body is not JSON`);
  }
}

/** `GET /api/audit/checkpoint`: the parsed checkpoint and its body exactly as the node sent it. */
export async function fetchCheckpoint(
  node: string,
  token: string,
): Promise<{ signed: SignedCheckpoint; body: string }> {
  const { text, json } = await getJson(new URL('/api/audit/checkpoint', node), token);
  const parsed = SignedCheckpointSchema.safeParse(json);
  if (!parsed.success) throw new AuditReadError('/api/audit/checkpoint: not a signed checkpoint');
  return { signed: parsed.data, body: text };
}

/** Entries 1..`upTo`, oldest first, page by page (`GET /api/audit/records`). */
export async function* fetchEntries(node: string, token: string, upTo: number): AsyncGenerator<ChainEntry> {
  let after = 0;
  while (after < upTo) {
    const url = new URL('/api/audit/records', node);
    url.searchParams.set('after', String(after));
    url.searchParams.set('limit', String(Math.min(AUDIT_PAGE_MAX, upTo - after)));
    const { json } = await getJson(url, token);
    const page = AuditRecordsPageSchema.safeParse(json);
    if (!page.success) throw new AuditReadError(`/api/audit/records?after=${after}: not a page of entries`);
    if (page.data.items.length === 0) return;
    for (const entry of page.data.items) {
      if (entry.seq > upTo) return;
      yield entry;
    }
    after = page.data.items.at(-1)?.seq ?? upTo;
  }
}
