import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class DependencyCheckDto {
  @ApiProperty({ example: 'postgres' }) name!: string;
  @ApiProperty() ok!: boolean;
  @ApiProperty({ description: 'How long the check took, in milliseconds' }) latencyMs!: number;
  @ApiPropertyOptional({ description: 'Why the check failed (for an unconfigured feature: what to set)' })
  detail?: string;
  @ApiPropertyOptional({
    description: 'A feature the component works without: failing, it makes the component `degraded` but not unready',
  })
  optional?: boolean;
}

export class ComponentHealthDto {
  @ApiProperty({ example: 'fragments' }) component!: string;
  @ApiProperty({ enum: ['ok', 'degraded', 'unavailable'] }) status!: 'ok' | 'degraded' | 'unavailable';
  @ApiProperty({ description: 'Round trip from the gateway to the component and back, in milliseconds' })
  latencyMs!: number;
  @ApiProperty({ type: [DependencyCheckDto] }) dependencies!: DependencyCheckDto[];
  @ApiPropertyOptional() detail?: string;
}

export class CloudLinkKeysDto {
  @ApiProperty({ description: 'Keys that verify handoff tokens now' }) count!: number;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) fetchedAt!: string | null;
  @ApiProperty({ description: 'Fetched from the Cloud within the last two refresh periods (10 minutes)' })
  fresh!: boolean;
}

export class CloudLinkRevocationsDto {
  @ApiProperty({ description: 'Handoff revocations held (the Cloud sends those younger than the token lifetime)' })
  count!: number;
  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'When the Cloud last sent the list' })
  updatedAt!: string | null;
}

export class CloudLinkDto {
  @ApiProperty({
    enum: ['ok', 'degraded', 'down'],
    description:
      '`ok`: heartbeats answered, keys fresh; `degraded`: serving with cached keys while the Cloud does not answer (or refused this Leaf); `down`: no key, no handoff token can be verified',
  })
  status!: 'ok' | 'degraded' | 'down';
  @ApiProperty() detail!: string;
  @ApiProperty() enrolled!: boolean;
  @ApiProperty({ format: 'uuid', nullable: true, type: String }) hostedZoneId!: string | null;
  @ApiProperty({ enum: ['up', 'unreachable', 'refused', 'pending'] })
  link!: 'up' | 'unreachable' | 'refused' | 'pending';
  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description: 'The last heartbeat the Cloud answered',
  })
  lastHeartbeatAt!: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'The last heartbeat that failed' })
  lastFailureAt!: string | null;
  @ApiProperty({ type: CloudLinkKeysDto }) keys!: CloudLinkKeysDto;
  @ApiProperty({ type: CloudLinkRevocationsDto }) revocations!: CloudLinkRevocationsDto;
}

export class HealthDto {
  @ApiProperty({
    enum: ['ok', 'degraded', 'down'],
    description:
      '`ok` when every component and dependency answered, `degraded` otherwise (see `ready`); on a Leaf also `degraded` while its Cloud link is, and `down` when it cannot verify handoff tokens',
  })
  status!: 'ok' | 'degraded' | 'down';
  @ApiProperty({
    description:
      'Every component answered and none lacks a required dependency (an unconfigured optional feature does not count); the status code is then 200, otherwise 503',
  })
  ready!: boolean;
  @ApiProperty({ description: 'The gateway process itself is alive (liveness)' }) live!: boolean;
  @ApiProperty({ enum: ['embedded', 'distributed'] }) runMode!: string;
  @ApiProperty({ type: [ComponentHealthDto] }) components!: ComponentHealthDto[];
  @ApiPropertyOptional({
    type: CloudLinkDto,
    description: "A Leaf only: its link to the Cloud (docs/hosted-zones-leaf.md, 'Health')",
  })
  cloudLink?: CloudLinkDto;
  @ApiProperty({ format: 'date-time' }) checkedAt!: string;
}

export class VersionDto {
  @ApiProperty({ example: '0.1.0', description: 'Platform version' }) version!: string;
  @ApiProperty({ description: 'Source commit of the build, or `unknown`' }) commit!: string;
  @ApiProperty({ description: 'When the build was made (ISO 8601), or `unknown`' }) builtAt!: string;
  @ApiProperty({ example: 'v20.20.2' }) node!: string;
  @ApiProperty({ enum: ['embedded', 'distributed'] }) runMode!: string;
}
