import { IsOptional } from 'class-validator';
import { IsRequiredSecret } from './auth-request.validators';

/**
 * The spec's RefreshRequest; logout takes the same body. `refresh_token` is required, except in the cookie scheme
 * (refresh-cookie.ts), where it comes from the cookie: the controller enforces which, with the same message.
 */
export class RefreshRequestDto {
  @IsOptional()
  @IsRequiredSecret(512)
  refresh_token?: string;
}
