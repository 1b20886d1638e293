import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger';
import { CHAT_MESSAGES_MAX, CHAT_STOP_MAX, CHAT_TOOLS_MAX } from '../../chat-limits.js';

const contentPart: SchemaObject = {
  oneOf: [
    {
      type: 'object',
      required: ['type', 'text'],
      properties: { type: { type: 'string', enum: ['text'] }, text: { type: 'string' } },
    },
    {
      type: 'object',
      required: ['type', 'image_url'],
      properties: {
        type: { type: 'string', enum: ['image_url'] },
        image_url: {
          type: 'object',
          required: ['url'],
          properties: {
            url: { type: 'string', description: 'An http(s) URL or a data:image/...;base64, URL' },
            detail: { type: 'string', enum: ['auto', 'low', 'high'] },
          },
        },
      },
    },
  ],
};

const toolCall: SchemaObject = {
  type: 'object',
  required: ['id', 'type', 'function'],
  properties: {
    id: { type: 'string' },
    type: { type: 'string', enum: ['function'] },
    function: {
      type: 'object',
      required: ['name', 'arguments'],
      properties: { name: { type: 'string' }, arguments: { type: 'string', description: 'JSON text' } },
    },
  },
};

const message: SchemaObject = {
  type: 'object',
  required: ['role'],
  properties: {
    role: { type: 'string', enum: ['system', 'user', 'assistant', 'tool'] },
    content: {
      oneOf: [{ type: 'string' }, { type: 'array', items: contentPart }, { type: 'null' }],
      description: 'A string, or parts (`text`, and `image_url` in user messages)',
    },
    name: { type: 'string' },
    tool_calls: { type: 'array', items: toolCall, description: 'Assistant messages' },
    tool_call_id: { type: 'string', description: 'Tool messages: the call this answers' },
  },
};

class UsageDto {
  @ApiProperty() prompt_tokens!: number;
  @ApiProperty() completion_tokens!: number;
  @ApiProperty() total_tokens!: number;
}

/** The request of POST /api/v1/chat/completions, for the document: the route reads it with parseChatRequest. */
export class ChatCompletionRequestDto {
  @ApiProperty({ description: 'A model id from GET /api/v1/models' }) model!: string;
  @ApiProperty({ type: 'array', items: message, maxItems: CHAT_MESSAGES_MAX, minItems: 1 })
  messages!: unknown[];
  @ApiPropertyOptional({
    type: 'array',
    maxItems: CHAT_TOOLS_MAX,
    items: {
      type: 'object',
      required: ['type', 'function'],
      properties: {
        type: { type: 'string', enum: ['function'] },
        function: {
          type: 'object',
          required: ['name'],
          properties: {
            name: { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,64}$' },
            description: { type: 'string' },
            parameters: { type: 'object', description: 'JSON Schema of the arguments' },
            strict: {
              type: 'boolean',
              description: "OpenAI's structured tool arguments, passed on to OpenAI-compatible providers",
            },
          },
        },
      },
    },
  })
  tools?: unknown[];
  @ApiPropertyOptional({
    oneOf: [
      { type: 'string', enum: ['auto', 'none', 'required'] },
      {
        type: 'object',
        properties: {
          type: { type: 'string', enum: ['function'] },
          function: { type: 'object', properties: { name: { type: 'string' } } },
        },
      },
    ],
  })
  tool_choice?: unknown;
  @ApiPropertyOptional() stream?: boolean;
  @ApiPropertyOptional({
    type: 'object',
    properties: { include_usage: { type: 'boolean' }, include_obfuscation: { type: 'boolean' } },
    description: 'Read and ignored: the last chunk always carries usage, and chunks are never padded',
  })
  stream_options?: unknown;
  @ApiPropertyOptional({ minimum: 0, maximum: 2 }) temperature?: number;
  @ApiPropertyOptional({ minimum: 0, maximum: 1 }) top_p?: number;
  @ApiPropertyOptional({ minimum: 1, description: "At most the model's capabilities.max_output_tokens" })
  max_tokens?: number;
  @ApiPropertyOptional({ minimum: 1, description: 'Alias of max_tokens' }) max_completion_tokens?: number;
  @ApiPropertyOptional({
    oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, maxItems: CHAT_STOP_MAX }],
  })
  stop?: unknown;
  @ApiPropertyOptional() user?: string;
  @ApiPropertyOptional({ enum: [1], description: 'Only 1' }) n?: number;
}

export class ChatCompletionDto {
  @ApiProperty() id!: string;
  @ApiProperty({ enum: ['chat.completion'] }) object!: string;
  @ApiProperty() created!: number;
  @ApiProperty() model!: string;
  @ApiProperty({
    type: 'array',
    items: {
      type: 'object',
      properties: {
        index: { type: 'integer' },
        message: {
          type: 'object',
          properties: {
            role: { type: 'string', enum: ['assistant'] },
            content: { type: ['string', 'null'] },
            tool_calls: { type: 'array', items: toolCall },
          },
        },
        finish_reason: { type: ['string', 'null'], enum: ['stop', 'length', 'tool_calls', 'content_filter', null] },
      },
    },
  })
  choices!: unknown[];
  @ApiProperty({ type: UsageDto }) usage!: UsageDto;
}
