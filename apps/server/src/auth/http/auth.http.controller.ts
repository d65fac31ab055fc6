import { Body, Get, Header, HttpCode, HttpStatus, Ip, Post, UseFilters, UsePipes } from '@nestjs/common';
import { AuthService, LoginResult, Operation, Principal, Public, PublicUser, TokenPair } from '@vectorstore/auth';
import { DtoValidationPipe } from '../../core/validation/dto-validation.pipe';
import { BearerChallengeFilter } from './bearer-challenge.filter';
import { CurrentPrincipal } from './current-principal.decorator';
import { LoginRequestDto } from './login.request.dto';
import { RefreshRequestDto } from './refresh.request.dto';
import { HttpController } from '../../core/rest/http-controller.decorator';

/** Area B: `/api/auth/*`. Token answers must never be cached (RFC 6749 section 5.1). */
@HttpController('api/auth')
@UsePipes(DtoValidationPipe)
@UseFilters(BearerChallengeFilter)
export class AuthHttpController {
  constructor(private readonly auth: AuthService) {}

  @Public()
  @Post('login')
  @HttpCode(HttpStatus.OK)
  @Header('Cache-Control', 'no-store')
  @Header('Pragma', 'no-cache')
  login(@Body() body: LoginRequestDto, @Ip() address: string | undefined): Promise<LoginResult> {
    return this.auth.login(body.email, body.password, address ?? 'unknown');
  }

  @Public()
  @Post('refresh')
  @HttpCode(HttpStatus.OK)
  @Header('Cache-Control', 'no-store')
  @Header('Pragma', 'no-cache')
  refresh(@Body() body: RefreshRequestDto): Promise<TokenPair> {
    return this.auth.refresh(body.refresh_token);
  }

  /** Public: holding the refresh token is what entitles ending its session. */
  @Public()
  @Post('logout')
  @HttpCode(HttpStatus.NO_CONTENT)
  logout(@Body() body: RefreshRequestDto): Promise<void> {
    return this.auth.logout(body.refresh_token);
  }

  @Operation('Auth/Me')
  @Get('me')
  @Header('Cache-Control', 'no-store')
  me(@CurrentPrincipal() principal: Principal): Promise<PublicUser> {
    return this.auth.me(principal);
  }
}
