import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import { SubscriptionBillingDto } from './billing.dto.js';

export class PlanLimitsDto {
  @ApiPropertyOptional({ description: 'Input plus output tokens of model calls per calendar month (UTC)' })
  monthlyTokens?: number;
  @ApiPropertyOptional({ description: 'Images generated per calendar month (UTC)' }) monthlyImages?: number;
  @ApiPropertyOptional({ description: 'Fragments in each workspace the account owns' })
  fragmentsPerWorkspace?: number;
  @ApiPropertyOptional({ description: 'Bytes of files in each workspace the account owns' }) storageBytes?: number;
  @ApiPropertyOptional({ description: 'Members (owner included) of each workspace the account owns' })
  membersPerWorkspace?: number;
  @ApiPropertyOptional({ description: 'Workspaces the account owns, archived ones included' })
  workspacesPerUser?: number;
  @ApiPropertyOptional({
    description: "Requests per minute through the gateway, all the account's credentials together",
  })
  requestsPerMinute?: number;
}

export class PlanEntitlementsDto {
  @ApiProperty() webSearch!: boolean;
  @ApiPropertyOptional({ type: [String], description: 'The models it may call; absent: every model' })
  models?: string[];
}

export class PlanDto {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: PlanLimitsDto, description: 'An absent limit is no limit' }) limits!: PlanLimitsDto;
  @ApiProperty({ type: PlanEntitlementsDto }) entitlements!: PlanEntitlementsDto;
}

export class PlanListDto {
  @ApiProperty({ type: [PlanDto] }) plans!: PlanDto[];
  @ApiProperty() defaultPlanId!: string;
}

export class SubscriptionUsageDto {
  @ApiProperty() tokens!: number;
  @ApiProperty() images!: number;
}

export class SubscriptionDto {
  @ApiProperty({ type: PlanDto }) plan!: PlanDto;
  @ApiProperty({ format: 'date-time' }) periodStart!: string;
  @ApiProperty({ format: 'date-time' }) periodEnd!: string;
  @ApiProperty({ type: SubscriptionUsageDto, description: 'Used in the period' }) usage!: SubscriptionUsageDto;
  @ApiProperty({
    type: SubscriptionBillingDto,
    nullable: true,
    description: 'Your subscription at the billing provider (docs/billing.md); null without one',
  })
  billing!: SubscriptionBillingDto | null;
}

export class AssignPlanDto {
  @ApiProperty({ example: 'free' }) @IsString() @MaxLength(63) planId!: string;
}
