import { IsLoginEmail, IsRequiredSecret } from './auth-request.validators';

/** The spec's LoginRequest. */
export class LoginRequestDto {
  @IsLoginEmail()
  email!: string;

  @IsRequiredSecret()
  password!: string;
}
