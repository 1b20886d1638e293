import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';

export class EchoRequestDto {
  @ApiProperty({ example: 'fragments', description: 'Component to send the message to' })
  @IsString()
  @Matches(/^[a-z][a-z-]*$/)
  component!: string;

  @ApiProperty({ example: 'hello', maxLength: 1000 })
  @IsString()
  @MaxLength(1000)
  text!: string;

  @ApiPropertyOptional({ minimum: 0, maximum: 60000, description: 'The component waits this long before answering' })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(60_000)
  delayMs?: number;

  @ApiPropertyOptional({
    description: 'The component fails with this error code (`UNEXPECTED`: an unexpected failure)',
  })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Z][A-Z_]{0,63}$/)
  failWithCode?: string;

  @ApiPropertyOptional({ minimum: 400, maximum: 599 })
  @IsOptional()
  @IsInt()
  @Min(400)
  @Max(599)
  failWithStatus?: number;
}

export class EchoResponseDto {
  @ApiProperty() text!: string;
  @ApiProperty({ description: "The request id the component saw (the gateway's x-request-id)" }) requestId!: string;
  @ApiProperty({ description: 'The component that answered' }) servedBy!: string;
}
