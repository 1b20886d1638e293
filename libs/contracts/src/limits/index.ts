// Field limits of contract messages: one definition that DTOs, handlers, MCP tool schemas and docs read.
export {};
