import { stableJson } from '@hitl/protocol';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

// A CommonJS module whose typings declare an ES default: at run time the default import is the function.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** Compiled schemas kept (an approval proxy asks with the same few tool schemas over and over). */
const CACHED = 200;
const cache = new Map<string, ValidateFunction>();

/**
 * The validator of a tool's input schema (Ajv, as the MCP SDK validates tool schemas). Each schema
 * gets an Ajv of its own, so a `$id` in one asker's schema never resolves in another's; `$schema` is
 * dropped (a tool's 2020-12 dialect marker would stop the compile, and the keywords are the same).
 * @throws Error when the schema cannot be compiled.
 */
function validatorOf(schema: Record<string, unknown>): ValidateFunction {
  const key = stableJson(schema);
  const known = cache.get(key);
  if (known) return known;
  const { $schema: _dialect, ...body } = schema;
  const ajv = new Ajv({ strict: false, allErrors: false, validateSchema: false });
  addFormats(ajv);
  const validate = ajv.compile(body);
  if (cache.size >= CACHED) cache.delete(cache.keys().next().value as string);
  cache.set(key, validate);
  return validate;
}

/** Why `schema` is not a JSON Schema the node can check arguments against, or null. */
export function inputSchemaProblem(schema: Record<string, unknown>): string | null {
  try {
    validatorOf(schema);
    return null;
  } catch (error) {
    return `action.inputSchema: not a JSON Schema that can be checked (${(error as Error).message})`;
  }
}

/** The argument an Ajv error is about, as `arguments.<path>`. */
function fieldOf(error: ErrorObject): string {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  const params = error.params as { missingProperty?: string; additionalProperty?: string };
  const extra = params.missingProperty ?? params.additionalProperty;
  if (extra !== undefined) path.push(extra);
  return ['arguments', ...path].join('.');
}

/**
 * Why `args` does not fit the tool's input schema (the field named first), or null when it does.
 * @example
 * argumentsProblem({type: 'object', properties: {n: {type: 'integer'}}}, {n: 'x'})
 * // → 'arguments.n: must be integer'
 */
export function argumentsProblem(
  schema: Record<string, unknown>,
  args: Record<string, unknown>,
): string | null {
  let validate: ValidateFunction;
  try {
    validate = validatorOf(schema);
  } catch (error) {
    return `the tool's input schema cannot be checked (${(error as Error).message})`;
  }
  if (validate(args)) return null;
  const first = validate.errors?.[0];
  if (!first) return 'arguments: do not fit the tool input schema';
  return `${fieldOf(first)}: ${first.message ?? 'does not fit the tool input schema'}`;
}
