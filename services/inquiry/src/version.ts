/** The service's version, as advertised in MCP `serverInfo`. */
export const VERSION = '0.1.0';
