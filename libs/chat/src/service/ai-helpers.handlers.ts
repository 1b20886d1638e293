import { Injectable } from '@nestjs/common';
import {
  AiHelpersService,
  type EmbedRequest,
  type GetUsageRequest,
  type SummarizeRequest,
  type TagRequest,
} from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { Handles } from '@kw/platform-transport';
import { AiAvailability } from './ai-helpers/ai-availability.js';
import { AiHelpers } from './ai-helpers/ai-helpers.js';
import { AiUsage } from './ai-helpers/ai-usage.js';

/** AiHelpersService over the transport: each method hands over to its use case. */
@Injectable()
export class AiHelpersHandlers {
  constructor(
    private readonly helpers: AiHelpers,
    private readonly availability: AiAvailability,
    private readonly usage: AiUsage,
  ) {}

  @Handles(AiHelpersService.method.embed)
  embed(input: EmbedRequest, context: RequestContext) {
    return this.helpers.embed(input.texts, context, input.inputType);
  }

  @Handles(AiHelpersService.method.summarize)
  summarize(input: SummarizeRequest, context: RequestContext) {
    return this.helpers.summarize({ text: input.text, fragmentId: input.fragmentId }, context);
  }

  @Handles(AiHelpersService.method.tag)
  tag(input: TagRequest, context: RequestContext) {
    return this.helpers.tag({ text: input.text, fragmentId: input.fragmentId, max: input.max }, context);
  }

  @Handles(AiHelpersService.method.getAvailability)
  async getAvailability(_input: unknown, context: RequestContext) {
    return { capabilities: await this.availability.list(context) };
  }

  @Handles(AiHelpersService.method.getUsage)
  getUsage(input: GetUsageRequest, context: RequestContext) {
    return this.usage.query(input, context);
  }
}
