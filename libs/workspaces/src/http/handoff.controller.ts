import { Controller, Get, Header, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { HostedZonesService } from '@kw/contracts';
import { NoStore, Public } from '@kw/platform-http';
import { ServiceClient } from '@kw/platform-transport';
import { HandoffResponseDto, JwksDto, RotateHandoffKeysResponseDto } from './dto/hosted-zones.dto.js';
import { handoffJson } from './presenters.js';

const M = HostedZonesService.method;

/** Token handoff to a hosted zone's Leaf, and the public keys that verify handoff tokens. */
@ApiTags('Hosted zones')
@Controller()
export class HandoffController {
  constructor(private readonly client: ServiceClient) {}

  @Post('api/workspaces/:id/handoff')
  @HttpCode(200)
  @NoStore()
  @ApiOperation({
    summary: 'Get a handoff token for a Leaf-backed workspace',
    description:
      'A short-lived JWT for the workspace at its Leaf, carrying the data-plane actions the caller may ' +
      'perform now. Needs `workspaces:read` on the workspace. A Cloud workspace answers 409 ' +
      '`NOT_A_HOSTED_ZONE_WORKSPACE`.',
  })
  @ApiOkResponse({ type: HandoffResponseDto })
  async issue(@Param('id') id: string): Promise<HandoffResponseDto> {
    return handoffJson(await this.client.call(M.issueHandoff, { workspaceId: id }));
  }

  @Post('api/admin/handoff-keys/rotate')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Rotate the handoff signing key now (after a suspected compromise)',
    description:
      'Platform administrators (scope `admin`). A new key signs from now on and every older key leaves the JWKS at ' +
      'once, so the handoff tokens they signed stop verifying at each Leaf with its next heartbeat; clients get ' +
      'new tokens. Scheduled rotation (HANDOFF_KEY_ROTATION_DAYS) keeps old keys published instead.',
  })
  @ApiOkResponse({ type: RotateHandoffKeysResponseDto })
  async rotate(): Promise<RotateHandoffKeysResponseDto> {
    const { kid, revokedKids } = await this.client.call(M.rotateHandoffKeys, {});
    return { success: true, kid, revokedKids };
  }

  @Get('.well-known/jwks.json')
  @Public()
  @Header('cache-control', 'public, max-age=300')
  @ApiOperation({
    summary: 'Handoff token keys (JWKS)',
    description:
      'The ES256 public keys that verify handoff tokens: the current key and previous ones whose tokens may still be valid.',
  })
  @ApiOkResponse({ type: JwksDto })
  async jwks(): Promise<JwksDto> {
    const { jwksJson } = await this.client.call(M.getHandoffKeys, {});
    return JSON.parse(jwksJson) as JwksDto;
  }
}
