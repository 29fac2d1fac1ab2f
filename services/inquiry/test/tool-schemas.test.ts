import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from './harness.js';

// The rules of the MCP Inspector's schema-portability check (`--method tools/list --strict`, inspector
// 2.12), asserted on what tools/list really sends. The Inspector itself needs Node >= 22.19 and a
// download, so the suite checks the same rules here; a run of the real check is in docs/CLIENTS.md.

const SUBSCHEMA = ['items', 'contains', 'not', 'propertyNames', 'if', 'then', 'else', 'additionalProperties'];
const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions'];
const MAY_BE_BOOLEAN = new Set(['additionalProperties', 'unevaluatedProperties', 'additionalItems']);
const CONSTRAINS = new Set([
  ...['type', 'enum', 'const', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum'],
  ...['maxLength', 'minLength', 'pattern', 'format', 'maxItems', 'minItems', 'uniqueItems', 'required'],
  ...['maxProperties', 'minProperties', 'allOf', 'anyOf', 'oneOf', 'not', 'items', 'prefixItems', 'contains'],
  ...['properties', 'patternProperties', 'additionalProperties', 'propertyNames', '$ref'],
]);

type Node = Record<string, unknown>;

/** Every problem the check would report, as `path: rule`. */
function portabilityProblems(schema: unknown, path: string, keyword?: string): string[] {
  if (typeof schema === 'boolean') {
    return keyword && MAY_BE_BOOLEAN.has(keyword) ? [] : [`${path}: bare boolean schema`];
  }
  if (typeof schema !== 'object' || schema === null) return [];
  const node = schema as Node;
  const problems: string[] = [];
  if (Array.isArray(node.type)) problems.push(`${path}: type is an array ${JSON.stringify(node.type)}`);
  if (typeof node.$ref === 'string' && !node.$ref.startsWith('#')) problems.push(`${path}: remote $ref`);
  if (keyword !== 'not' && !Object.keys(node).some((k) => CONSTRAINS.has(k))) {
    problems.push(`${path}: untyped schema ${JSON.stringify(node)}`);
  }
  for (const key of SUBSCHEMA) {
    if (key in node) problems.push(...portabilityProblems(node[key], `${path}.${key}`, key));
  }
  for (const key of SUBSCHEMA_LISTS) {
    const list = node[key];
    if (!Array.isArray(list)) continue;
    for (const [i, s] of list.entries()) problems.push(...portabilityProblems(s, `${path}.${key}[${i}]`));
  }
  for (const key of SUBSCHEMA_MAPS) {
    const map = node[key];
    if (typeof map !== 'object' || map === null) continue;
    for (const [name, s] of Object.entries(map))
      problems.push(...portabilityProblems(s, `${path}.${key}.${name}`));
  }
  return problems;
}

describe('tool schemas as tools/list sends them', () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode('memory');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('pass the portability rules: no type arrays, no untyped or bare boolean schemas, no remote $ref', async () => {
    const client = await t.mcp('schema-check');
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(0);
    const problems = tools.flatMap((tool) => [
      ...portabilityProblems(tool.inputSchema, `${tool.name}.inputSchema`),
      ...portabilityProblems(tool.outputSchema, `${tool.name}.outputSchema`),
    ]);
    expect(problems).toEqual([]);
    await client.close();
  });

  it('the rules catch what the check caught before: a nullable type array and an empty value schema', () => {
    expect(portabilityProblems({ type: ['string', 'null'] }, 'inquiryId')).toEqual([
      'inquiryId: type is an array ["string","null"]',
    ]);
    expect(portabilityProblems({ type: 'object', additionalProperties: {} }, 'arguments')).toEqual([
      'arguments.additionalProperties: untyped schema {}',
    ]);
    expect(portabilityProblems({ type: 'object', additionalProperties: true }, 'arguments')).toEqual([]);
  });
});
