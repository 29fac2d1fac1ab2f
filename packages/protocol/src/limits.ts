/** Size limits shared by every boundary. Changing one changes the contract. */
export const LIMITS = {
  /** `question` text, in characters. */
  questionChars: 8192,
  /** A single form prompt, in characters. */
  promptChars: 2000,
  /** Questions in one structured form. */
  questions: 50,
  /** Choices on one question. */
  options: 100,
  /** One choice label, in characters. */
  optionChars: 500,
  /** `context`, in bytes of UTF-8 (JSON-encoded when it is an object). */
  contextBytes: 32 * 1024,
  /** `idempotencyKey`, in characters. */
  idempotencyKeyChars: 255,
  /** A text answer, in characters. */
  answerChars: 8192,
  /** Request body on `/mcp` and REST, in bytes. */
  bodyBytes: 256 * 1024,
  /** Socket.IO `maxHttpBufferSize`, in bytes. */
  socketBufferBytes: 64 * 1024,
  /** One `inquiry:sync` page, in bytes of JSON. */
  syncPageBytes: 256 * 1024,
  /** Page size for lists. */
  pageSize: 200,
  /** Users one inquiry is addressed to (an `audience`, a team's members), after removing repeats. */
  audienceUsers: 100,
  /** Most approvals a quorum may require. */
  quorumMax: 10,
  /** How deep a JSON body may nest (objects and arrays), counted from its root. */
  jsonDepth: 64,
  /** A person's reason for a reject or a refusal, in characters. */
  reasonChars: 1000,
  /** Edited arguments of an approval (and a standing approval's `match`), in bytes of JSON. */
  argumentsBytes: 32 * 1024,
  /** How deep edited arguments may nest, counted from the arguments object itself. */
  argumentsDepth: 16,
  /** An approval's `action.inputSchema`, in bytes of JSON. */
  inputSchemaBytes: 32 * 1024,
  /** Names in an approval's `editable` list (and in a standing approval's `match`). */
  editableNames: 100,
  /** Live standing approvals covering one asker. */
  standingPerUser: 100,
  /** The longest standing approval anyone may ask for, in minutes (a node's cap may be lower). */
  standingMinutesMax: 7 * 24 * 60,
} as const;

/** Bytes of a string once UTF-8 encoded (browser-safe). */
export function utf8Bytes(text: string): number {
  return new TextEncoder().encode(text).byteLength;
}
