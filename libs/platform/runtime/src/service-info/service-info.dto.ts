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

export class HealthDto {
  @ApiProperty({
    enum: ['ok', 'degraded'],
    description: '`ok` when every component and dependency answered, `degraded` otherwise (see `ready`)',
  })
  status!: 'ok' | 'degraded';
  @ApiProperty({
    description:
      'Every component answered and none lacks a required dependency (an unconfigured optional feature does not count); the status code is then 200, otherwise 503',
  })
  ready!: boolean;
  @ApiProperty({ description: 'The gateway process itself is alive (liveness)' }) live!: boolean;
  @ApiProperty({ enum: ['embedded', 'distributed'] }) runMode!: string;
  @ApiProperty({ type: [ComponentHealthDto] }) components!: ComponentHealthDto[];
  @ApiProperty({ format: 'date-time' }) checkedAt!: string;
}

export class VersionDto {
  @ApiProperty({ example: '0.1.0', description: 'Platform version' }) version!: string;
  @ApiProperty({ description: 'Source commit of the build, or `unknown`' }) commit!: string;
  @ApiProperty({ description: 'When the build was made (ISO 8601), or `unknown`' }) builtAt!: string;
  @ApiProperty({ example: 'v20.20.2' }) node!: string;
  @ApiProperty({ enum: ['embedded', 'distributed'] }) runMode!: string;
}
