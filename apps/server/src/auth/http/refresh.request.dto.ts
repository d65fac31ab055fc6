import { IsRequiredSecret } from './auth-request.validators';

/** The spec's RefreshRequest; logout takes the same body. */
export class RefreshRequestDto {
  @IsRequiredSecret(512)
  refresh_token!: string;
}
