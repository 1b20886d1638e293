import { Body, Controller, Headers, HttpCode, Inject, Param, Post, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { HostedZonesService } from '@kw/contracts';
import type { AppConfig } from '@kw/platform-config';
import { NoStore, Public, publicBase } from '@kw/platform-http';
import { APP_CONFIG } from '@kw/platform-runtime';
import { ServiceClient } from '@kw/platform-transport';
import { jwksPath } from '../service/hosted-zones/hosted-zone-settings.js';
import {
  EnrollLeafDto,
  EnrollLeafResponseDto,
  LeafHeartbeatDto,
  LeafHeartbeatResponseDto,
  PlacementResponseDto,
} from './dto/hosted-zones.dto.js';
import { placementJson, revocationJson } from './presenters.js';

const M = HostedZonesService.method;

/** `Bearer kwz_...` from the Authorization header; anything else is left for the service to refuse. */
function zoneCredential(authorization: string | undefined): string {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  return match?.[1] ?? '';
}

/**
 * Routes a Leaf calls. They are @Public(): the gateway's bearer authentication knows personal
 * access tokens only, and a Leaf is not a user. Each carries its own credential: the one-time
 * enrollment token, then the zone credential (`Authorization: Bearer kwz_...`).
 */
@ApiTags('Hosted zones (Leaf)')
@Public()
@Controller('api/hosted-zones')
export class LeafLinkController {
  constructor(
    private readonly client: ServiceClient,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post('enroll')
  @HttpCode(200)
  @NoStore()
  @ApiOperation({
    summary: 'Enroll a Leaf',
    description:
      'Uses up the enrollment token (401 `UNAUTHENTICATED` when unknown, used or expired; 409 `HOSTED_ZONE_MISMATCH`, ' +
      "leaving it unused, when it is not `hostedZoneId`'s) and answers the zone credential. The zone's active " +
      'workspaces go back to `processing` until the Leaf that enrolled reports each ready again.',
  })
  @ApiOkResponse({ type: EnrollLeafResponseDto })
  async enroll(@Body() body: EnrollLeafDto, @Req() request: FastifyRequest): Promise<EnrollLeafResponseDto> {
    const answer = await this.client.call(M.enrollLeaf, {
      enrollmentToken: body.enrollmentToken,
      endpointUrl: body.endpointUrl,
      leafVersion: body.leafVersion,
      hostedZoneId: body.hostedZoneId ?? '',
    });
    // The keys URL as this request reached the Cloud (PUBLIC_URL when set).
    const jwksUri = `${publicBase(this.config, request)}${jwksPath}`;
    return {
      hostedZoneId: answer.hostedZoneId,
      zoneCredential: answer.zoneCredential,
      issuer: answer.issuer,
      audience: answer.audience,
      jwksUri,
    };
  }

  @Post('heartbeat')
  @HttpCode(200)
  @ApiBearerAuth()
  @ApiOperation({
    summary: 'Leaf heartbeat',
    description:
      '`Authorization: Bearer kwz_...`. Marks the zone online; answers the placements to provision, the handoff tokens to refuse, ' +
      'the workspaces moving out (read-only) or moved away (to purge), and the issuer and keys URL of handoff tokens now ' +
      '(a Leaf enrolled before PUBLIC_URL changed takes them).',
  })
  @ApiOkResponse({ type: LeafHeartbeatResponseDto })
  async heartbeat(
    @Headers('authorization') authorization: string | undefined,
    @Body() body: LeafHeartbeatDto,
    @Req() request: FastifyRequest,
  ): Promise<LeafHeartbeatResponseDto> {
    const answer = await this.client.call(M.leafHeartbeat, {
      zoneCredential: zoneCredential(authorization),
      endpointUrl: body.endpointUrl ?? '',
      leafVersion: body.leafVersion ?? '',
      frozenWorkspaceIds: body.frozenWorkspaceIds ?? [],
    });
    return {
      hostedZoneId: answer.hostedZoneId,
      placements: answer.placements.map(placementJson),
      revocations: answer.revocations.map(revocationJson),
      handoffKeyIds: answer.handoffKeyIds,
      frozenWorkspaceIds: answer.frozenWorkspaceIds,
      removedWorkspaceIds: answer.removedWorkspaceIds,
      // As the enrollment answers them: a Leaf enrolled before PUBLIC_URL changed takes these.
      issuer: answer.issuer,
      jwksUri: `${publicBase(this.config, request)}${jwksPath}`,
    };
  }

  @Post('placements/:workspaceId/ready')
  @HttpCode(200)
  @ApiBearerAuth()
  @ApiOperation({
    summary: 'Report a placement provisioned',
    description:
      '`Authorization: Bearer kwz_...`. The workspace becomes active; a workspace not placed on this zone answers 404.',
  })
  @ApiOkResponse({ type: PlacementResponseDto })
  async ready(
    @Headers('authorization') authorization: string | undefined,
    @Param('workspaceId') workspaceId: string,
  ): Promise<PlacementResponseDto> {
    const { placement } = await this.client.call(M.markPlacementReady, {
      zoneCredential: zoneCredential(authorization),
      workspaceId,
    });
    return { placement: placementJson(placement) };
  }

  @Post('placements/:workspaceId/removed')
  @HttpCode(204)
  @ApiBearerAuth()
  @ApiOperation({
    summary: 'Report a moved-away workspace purged',
    description:
      '`Authorization: Bearer kwz_...`. The Leaf purged a workspace its heartbeat listed in `removedWorkspaceIds`; idempotent (204 also when nothing was pending).',
  })
  @ApiNoContentResponse()
  async removed(
    @Headers('authorization') authorization: string | undefined,
    @Param('workspaceId') workspaceId: string,
  ): Promise<void> {
    await this.client.call(M.markPlacementRemoved, { zoneCredential: zoneCredential(authorization), workspaceId });
  }
}
