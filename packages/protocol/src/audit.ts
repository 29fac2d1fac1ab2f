import { z } from 'zod';

/**
 * The tamper-evident audit chain's wire shapes. Auditors check them with their own tools, so they are
 * exact: an entry is `{seq, prevHash, hash, record}`, `seq` counts from 1, the first `prevHash` is
 * {@link GENESIS_HASH}, and `hash` is the lowercase hex SHA-256 of the UTF-8 bytes of
 * `prevHash + "\n" + JCS(record)` (RFC 8785 canonical JSON).
 */

/** The `prevHash` of entry 1: 64 zeros. */
export const GENESIS_HASH = '0'.repeat(64);

const Sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 lowercase hex digits');

/**
 * One decision as the chain keeps it: any JSON object with a unique `id` (the appender's idempotency
 * key), a `type` and its time `at` (epoch ms). What else a record holds depends on its type.
 */
export const AuditRecordSchema = z.looseObject({
  id: z.string().min(1).max(300),
  type: z.string().min(1).max(100),
  at: z.number().int().min(0),
});
export type AuditRecord = z.infer<typeof AuditRecordSchema> & { [key: string]: unknown };

export const ChainEntrySchema = z.object({
  seq: z.number().int().min(1),
  prevHash: Sha256Hex,
  hash: Sha256Hex,
  record: AuditRecordSchema,
});
export type ChainEntry = { seq: number; prevHash: string; hash: string; record: AuditRecord };

/** The chain's head at one moment, as signed: `at` is integer epoch ms. */
export const CheckpointSchema = z.object({
  seq: z.number().int().min(0),
  hash: Sha256Hex,
  at: z.number().int().min(0),
});
export type Checkpoint = z.infer<typeof CheckpointSchema>;

const Base64Url = z.string().regex(/^[A-Za-z0-9_-]+$/, 'expected base64url');

/**
 * `GET /api/audit/checkpoint`: the head, Ed25519-signed over `JCS(checkpoint)`; `publicKey` is the raw
 * 32-byte key and `signature` the 64-byte signature, both base64url.
 */
export const SignedCheckpointSchema = z.object({
  checkpoint: CheckpointSchema,
  signature: Base64Url,
  publicKey: Base64Url,
});
export type SignedCheckpoint = z.infer<typeof SignedCheckpointSchema>;

/** Most entries one `GET /api/audit/records` page holds. */
export const AUDIT_PAGE_MAX = 1000;

/** `GET /api/audit/records?after=<seq>&limit=`: entries after `after`, oldest first. */
export const AuditRecordsQuerySchema = z.object({
  after: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(AUDIT_PAGE_MAX).default(100),
});
export type AuditRecordsQuery = z.infer<typeof AuditRecordsQuerySchema>;

/** Records an approval proxy hands a node at once (`POST /api/audit/records`). */
export const AUDIT_POST_MAX = 100;

/**
 * `POST /api/audit/records` (ops): an embedded approval proxy's records (its grants and runs) for the
 * node's chain. Their ids start with `proxy:`: a node never takes an inquiry's record from outside.
 */
export const AuditPostSchema = z.object({
  records: z
    .array(
      AuditRecordSchema.refine((r) => r.id.startsWith('proxy:'), {
        message: 'id must start with "proxy:"',
        path: ['id'],
      }),
    )
    .min(1)
    .max(AUDIT_POST_MAX),
});

/** A page of entries; `nextCursor` is the `after` of the next page (a seq, as text), null at the head. */
export const AuditRecordsPageSchema = z.object({
  items: z.array(ChainEntrySchema),
  nextCursor: z.string().nullable(),
});
export type AuditRecordsPage = z.infer<typeof AuditRecordsPageSchema>;
