/** The proxy's version, reported as its MCP server and client version. */
export const VERSION = '0.1.0';
