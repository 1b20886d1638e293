import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  IsUUID,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';
import {
  EMBED_ANSWER_OPTION_MAX,
  EMBED_ANSWERS_MAX,
  EMBED_CHAT_CONTEXT_ITEMS_MAX,
  EMBED_CHAT_MESSAGE_MAX_CHARS,
  EMBED_CHAT_MESSAGES_MAX,
  EMBED_FEEDBACK_COMMENT_MAX,
  EMBED_FEEDBACK_RATINGS,
  EMBED_MODEL_MAX,
} from '../../chat-limits.js';
import { ContextItemDto } from './embed-configs.dto.js';

export class EmbedMessageDto {
  @ApiProperty({
    enum: ['user', 'assistant'],
    description: 'Earlier assistant messages are history the client kept (stateless mode)',
  })
  @IsIn(['user', 'assistant'])
  role!: string;

  @ApiProperty({ maxLength: EMBED_CHAT_MESSAGE_MAX_CHARS })
  @IsString()
  @MinLength(1)
  @MaxLength(EMBED_CHAT_MESSAGE_MAX_CHARS)
  content!: string;
}

export class EmbedChatRequestDto {
  @ApiProperty({
    type: [EmbedMessageDto],
    minItems: 1,
    maxItems: EMBED_CHAT_MESSAGES_MAX,
    description:
      "The turn's messages, the last one the user's. With a stored conversation (`conversationId`, not stateless) they are appended to what is stored; in stateless mode they are the history the client keeps (its newest part beyond these limits, as the widget does).",
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(EMBED_CHAT_MESSAGES_MAX)
  @ValidateNested({ each: true })
  @Type(() => EmbedMessageDto)
  messages!: EmbedMessageDto[];

  @ApiPropertyOptional({
    description:
      'Continue this conversation: the `conversationId` of an earlier `done` event, or in stateless mode the `X-Embed-Session-Id` header of the previous answer',
    format: 'uuid',
  })
  @IsOptional()
  @IsUUID()
  conversationId?: string;

  @ApiPropertyOptional({
    maxLength: EMBED_MODEL_MAX,
    description:
      'A chat model of GET /api/v1/models; refused (400 MODEL_LOCKED) when the configuration locks its model',
  })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(EMBED_MODEL_MAX)
  model?: string;

  @ApiPropertyOptional({
    type: [ContextItemDto],
    maxItems: EMBED_CHAT_CONTEXT_ITEMS_MAX,
    description: "Fragments, collections or files to ground this turn in, read with the user's access",
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(EMBED_CHAT_CONTEXT_ITEMS_MAX)
  @ValidateNested({ each: true })
  @Type(() => ContextItemDto)
  contextItems?: ContextItemDto[];
}

export class EmbedAnswerDto {
  @ApiProperty({ maxLength: 2_000, description: 'The question answered, as the `question` event asked it' })
  @IsString()
  @MinLength(1)
  @MaxLength(2_000)
  question!: string;

  @ApiProperty({ type: [String], maxItems: EMBED_ANSWERS_MAX })
  @IsArray()
  @ArrayMaxSize(EMBED_ANSWERS_MAX)
  @IsString({ each: true })
  @MaxLength(EMBED_ANSWER_OPTION_MAX, { each: true })
  selected!: string[];

  @ApiPropertyOptional({ maxLength: EMBED_CHAT_MESSAGE_MAX_CHARS, description: 'A free answer, where allowed' })
  @IsOptional()
  @IsString()
  @MaxLength(EMBED_CHAT_MESSAGE_MAX_CHARS)
  other?: string;
}

export class EmbedResumeRequestDto {
  @ApiProperty({ description: 'The `resumeToken` of the `question` event; it works once' })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  resumeToken!: string;

  @ApiProperty({ type: [EmbedAnswerDto], minItems: 1, maxItems: EMBED_ANSWERS_MAX })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(EMBED_ANSWERS_MAX)
  @ValidateNested({ each: true })
  @Type(() => EmbedAnswerDto)
  answers!: EmbedAnswerDto[];
}

export class EmbedFeedbackRequestDto {
  @ApiProperty({ enum: EMBED_FEEDBACK_RATINGS })
  @IsIn(EMBED_FEEDBACK_RATINGS)
  rating!: string;

  @ApiProperty({ format: 'uuid', description: 'The `messageId` of the `done` event of the rated answer' })
  @IsUUID()
  messageId!: string;

  @ApiProperty({ format: 'uuid', description: 'The embed configuration of the key (anything else: 404)' })
  @IsUUID()
  embedConfigId!: string;

  @ApiPropertyOptional({ maxLength: EMBED_FEEDBACK_COMMENT_MAX })
  @IsOptional()
  @IsString()
  @MaxLength(EMBED_FEEDBACK_COMMENT_MAX)
  comment?: string;
}

export class EmbedFeedbackResponseDto {
  @ApiProperty({ format: 'uuid', description: 'The fragment the feedback was stored as' })
  fragmentId!: string;
}
