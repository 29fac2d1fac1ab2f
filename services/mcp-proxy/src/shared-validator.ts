import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';

/**
 * One JSON Schema validator for every SDK `Client` and `Server` the proxy makes (each builds an Ajv
 * of its own otherwise: measured ~19 KB of heap each, and the proxy makes a server per request and
 * a client per user). It compiles schemas only when asked (elicitation forms, tool output schemas).
 */
export const sharedValidator = new AjvJsonSchemaValidator();
