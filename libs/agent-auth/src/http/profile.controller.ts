import { Body, Controller, Get, Patch } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { IdentityService } from '@kw/contracts';
import { ServiceClient } from '@kw/platform-transport';
import { BetaFeatureListDto, UpdateBetaFeatureDto, UpdateProfileDto } from './dto/profile.dto.js';
import { toUserDto, UserEnvelopeDto } from './dto/user.dto.js';

@ApiTags('Profile')
@Controller('api')
export class ProfileController {
  constructor(private readonly client: ServiceClient) {}

  @Get('profile')
  @ApiOperation({ summary: 'Your profile', description: 'Scope `profile:read`.' })
  @ApiOkResponse({ type: UserEnvelopeDto })
  async get(): Promise<UserEnvelopeDto> {
    return { user: toUserDto((await this.client.call(IdentityService.method.getProfile, {})).user) };
  }

  @Patch('profile')
  @ApiOperation({
    summary: 'Update your profile',
    description: 'Scope `profile:write`. Only `displayName` can be changed; any other field is refused (400).',
  })
  @ApiOkResponse({ type: UserEnvelopeDto })
  async update(@Body() body: UpdateProfileDto): Promise<UserEnvelopeDto> {
    return {
      user: toUserDto(
        (await this.client.call(IdentityService.method.updateProfile, { displayName: body.displayName })).user,
      ),
    };
  }

  @Get('user/beta-features')
  @ApiOperation({
    summary: 'Your beta features',
    description: 'Scope `profile:read`. Every known feature, with whether it is on for you.',
  })
  @ApiOkResponse({ type: BetaFeatureListDto })
  async betaFeatures(): Promise<BetaFeatureListDto> {
    const { features } = await this.client.call(IdentityService.method.listBetaFeatures, {});
    return {
      features: features.map((f) => ({ featureKey: f.featureKey, enabled: f.enabled, description: f.description })),
    };
  }

  @Patch('user/beta-features')
  @ApiOperation({
    summary: 'Switch a beta feature',
    description: 'Scope `profile:write`. An unknown featureKey is refused (400).',
  })
  @ApiOkResponse({ type: BetaFeatureListDto })
  async updateBetaFeature(@Body() body: UpdateBetaFeatureDto): Promise<BetaFeatureListDto> {
    const { features } = await this.client.call(IdentityService.method.updateBetaFeature, body);
    return {
      features: features.map((f) => ({ featureKey: f.featureKey, enabled: f.enabled, description: f.description })),
    };
  }
}
