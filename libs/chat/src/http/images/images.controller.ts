import { Body, Controller, Get, HttpCode, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthContext } from '@kw/contracts';
import type { AppConfig } from '@kw/platform-config';
import { AppError, ErrorCode } from '@kw/platform-errors';
import { BearerOnly, CurrentAuth, Public, publicBase } from '@kw/platform-http';
import type { ModelGateway, ModelInfo } from '@kw/platform-models';
import { APP_CONFIG } from '@kw/platform-runtime';
import { invalidParam } from '../../domain/chat-request.js';
import { assertChatAllowed } from '../chat-access.js';
import { PlanGate } from '../plan-gate.js';
import { ImageGenerationDto, ImageGenerationRequestDto } from '../dto/images.dto.js';
import { clientAbortSignal, unlessClientGone } from '../completions/client-abort.js';
import { ModelCatalog } from '../models/model-catalog.js';
import { MODEL_GATEWAY } from '../models/model-gateway.provider.js';
import { ProviderKeys } from '../models/provider-keys.js';
import { UsageRecorder } from '../models/usage-recorder.js';
import { GeneratedImages } from './generated-images.js';

const imageNotFound = () =>
  new AppError({ status: 404, code: ErrorCode.NOT_FOUND, message: 'No such image, or its URL has expired' });

@ApiTags('OpenAI-compatible')
@Controller('api/v1/images')
export class ImagesController {
  constructor(
    private readonly catalog: ModelCatalog,
    @Inject(MODEL_GATEWAY) private readonly gateway: ModelGateway,
    private readonly keys: ProviderKeys,
    private readonly usage: UsageRecorder,
    private readonly images: GeneratedImages,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly plans: PlanGate,
  ) {}

  @Post('generations')
  @HttpCode(200)
  @BearerOnly()
  @ApiOperation({
    summary: 'Generate an image',
    description:
      'OpenAI-compatible. `n` must be 1; `size` must be one the model offers. `response_format: url` answers a URL served by this platform: unguessable and valid for CHAT_IMAGE_URL_TTL_SECONDS.',
  })
  @ApiOkResponse({ type: ImageGenerationDto })
  async generate(
    @Body() body: ImageGenerationRequestDto,
    @CurrentAuth() auth: AuthContext,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ImageGenerationDto> {
    assertChatAllowed(auth);
    const model = this.imageModel(body.model);
    if (body.size && model.imageSizes?.length && !model.imageSizes.includes(body.size)) {
      throw invalidParam('size', `must be one of ${model.imageSizes.join(', ')} for model "${model.id}"`);
    }
    // `n` is 1: one image held against the budget until its record is made.
    const hold = await this.plans.check(auth.userId, model.id, 'image', 1);
    const started = performance.now();
    const signal = clientAbortSignal(request, reply);
    const call = await this.gateway
      .generateImage(
        model,
        { prompt: body.prompt, size: body.size, quality: body.quality, style: body.style },
        { signal, credentialFor: this.keys.resolverFor(auth.userId, model.id) },
      )
      .catch((err: unknown) => {
        this.record(
          model,
          { provider: model.provider, credential: 'operator' },
          started,
          0,
          signal.aborted ? 'cancelled' : 'upstream_error',
        );
        hold.release();
        return unlessClientGone(signal)(err);
      });
    this.record(model, call.served, started, call.result.data.length, 'ok');
    hold.release();
    if (body.response_format !== 'url') return call.result;
    const base = publicBase(this.config, request);
    const data = await Promise.all(
      call.result.data.map(async (image) => {
        const name = await this.images.store(Buffer.from(image.b64_json, 'base64'));
        return {
          url: `${base}/api/v1/images/${name}`,
          ...(image.revised_prompt ? { revised_prompt: image.revised_prompt } : {}),
        };
      }),
    );
    return { created: call.result.created, data };
  }

  @Get(':name')
  @Public()
  @ApiOperation({
    summary: 'A generated image',
    description:
      'The URL of a `response_format: url` answer: needs no credential (the name is the secret) and expires.',
  })
  @ApiProduces('image/png')
  @ApiOkResponse({ description: 'The PNG bytes' })
  async image(@Param('name') name: string, @Res() reply: FastifyReply): Promise<void> {
    const stream = await this.images.open(name);
    if (!stream) throw imageNotFound();
    await reply
      .status(200)
      .headers({
        'content-type': 'image/png',
        'cache-control': 'private, max-age=300',
        'x-content-type-options': 'nosniff',
      })
      .send(stream);
  }

  private imageModel(id: string | undefined): ModelInfo {
    if (id) {
      const model = this.catalog.require(id);
      if (model.modality !== 'image') throw invalidParam('model', `"${id}" is not an image model`);
      return model;
    }
    const first = this.catalog.list().find((m) => m.modality === 'image');
    if (!first) {
      throw new AppError({
        status: 404,
        code: ErrorCode.MODEL_NOT_FOUND,
        message: 'No image model is configured on this deployment',
        param: 'model',
      });
    }
    return first;
  }

  private record(
    model: ModelInfo,
    served: { provider: string; credential: string },
    started: number,
    images: number,
    status: 'ok' | 'upstream_error' | 'cancelled',
  ): void {
    this.usage.record({
      credential: served.credential,
      model: model.id,
      provider: served.provider,
      kind: 'image',
      inputTokens: 0,
      outputTokens: 0,
      images,
      latencyMs: Math.round(performance.now() - started),
      status,
    });
  }
}
