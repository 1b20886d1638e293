import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional, IsUUID, ValidateIf } from 'class-validator';

export const MOVE_STATUSES = ['preparing', 'copying', 'done', 'aborted'] as const;

export class StartMoveDto {
  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description:
      "The target: one of the caller's hosted zones (online, https endpoint), or `null` for the Cloud. Not the workspace's current plane",
  })
  @ValidateIf((_, value) => value !== null)
  @IsUUID()
  hostedZoneId!: string | null;

  @ApiPropertyOptional({
    description:
      "Moving a Cloud workspace that holds files to a zone (which keeps none): the files are not moved and are deleted with the Cloud's copy. Without it such a move answers 409 `FILES_UNSUPPORTED_IN_HOSTED_ZONE` naming them",
  })
  @IsOptional()
  @IsBoolean()
  leaveFilesBehind?: boolean;
}

export class CompleteMoveDto {
  @ApiPropertyOptional({
    format: 'uuid',
    description:
      "The import job on the target plane. Required when the target is the Cloud, which checks that it ended `done`; a Leaf's the client checks there",
  })
  @IsOptional()
  @IsUUID()
  importTransferId?: string;
}

export class WorkspaceMoveDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) workspaceId!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'null: the Cloud' })
  fromHostedZoneId!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'null: the Cloud' })
  toHostedZoneId!: string | null;
  @ApiProperty({
    enum: MOVE_STATUSES,
    description:
      '`preparing` (the target is provisioned, the source made read-only), `copying` (export on the source, import on the target), `done`, `aborted`',
  })
  status!: string;
  @ApiProperty() leaveFilesBehind!: boolean;
  @ApiProperty({
    type: String,
    format: 'uri',
    nullable: true,
    description: "Where to export: the source Leaf's endpoint; null for the Cloud",
  })
  sourceEndpointUrl!: string | null;
  @ApiProperty({
    type: String,
    format: 'uri',
    nullable: true,
    description: "Where to import: the target Leaf's endpoint; null for the Cloud",
  })
  targetEndpointUrl!: string | null;
  @ApiProperty({
    description:
      "The copy that is not the workspace's any more (the source once done, the target once aborted) has been purged",
  })
  leftoverRemoved!: boolean;
  @ApiProperty({ format: 'uuid' }) createdBy!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) completedAt!: string | null;
}

export class WorkspaceMoveResponseDto {
  @ApiProperty({ enum: [true] }) success!: true;
  @ApiProperty({ type: WorkspaceMoveDto }) move!: WorkspaceMoveDto;
}
