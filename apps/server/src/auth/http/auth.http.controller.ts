import {
  Body,
  Get,
  Header,
  HttpCode,
  HttpStatus,
  Inject,
  Ip,
  Post,
  Req,
  Res,
  UseFilters,
  UsePipes,
} from '@nestjs/common';
import {
  AuthErrors,
  AuthService,
  LoginResult,
  Operation,
  Principal,
  Public,
  PublicUser,
  TokenPair,
} from '@vectorstore/auth';
import { DomainError, ErrorKind, isDomainError } from '@vectorstore/common';
import { APP_CONFIG, AppConfig } from '@vectorstore/config';
import type { Request, Response } from 'express';
import { DtoValidationPipe } from '../../core/validation/dto-validation.pipe';
import { BearerChallengeFilter } from './bearer-challenge.filter';
import { CurrentPrincipal } from './current-principal.decorator';
import { LoginRequestDto } from './login.request.dto';
import { RefreshRequestDto } from './refresh.request.dto';
import { HttpController } from '../../core/rest/http-controller.decorator';
import { RefreshCookie, SESSION_HEADER, wantsRefreshCookie } from './refresh-cookie';

/** A token answer in the cookie scheme: the refresh token travels only in the HttpOnly cookie. */
type CookieTokens = Omit<TokenPair, 'refresh_token'>;

/**
 * Area B: `/api/auth/*`. Token answers must never be cached (RFC 6749 section 5.1). With the header
 * `X-Vectorstore-Session: cookie` the refresh token travels in an HttpOnly cookie instead of the body (refresh-cookie.ts).
 */
@HttpController('api/auth')
@UsePipes(DtoValidationPipe)
@UseFilters(BearerChallengeFilter)
export class AuthHttpController {
  private readonly cookie: RefreshCookie;

  constructor(
    private readonly auth: AuthService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.cookie = new RefreshCookie(config.auth.cookieSecure);
  }

  @Public()
  @Post('login')
  @HttpCode(HttpStatus.OK)
  @Header('Cache-Control', 'no-store')
  @Header('Pragma', 'no-cache')
  async login(
    @Body() body: LoginRequestDto,
    @Ip() address: string | undefined,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<LoginResult | { tokens: CookieTokens; user: PublicUser }> {
    const result = await this.auth.login(body.email, body.password, address ?? 'unknown');
    if (!wantsRefreshCookie(request)) return result;
    return { tokens: this.toCookie(request, response, result.tokens), user: result.user };
  }

  @Public()
  @Post('refresh')
  @HttpCode(HttpStatus.OK)
  @Header('Cache-Control', 'no-store')
  @Header('Pragma', 'no-cache')
  async refresh(
    @Body() body: RefreshRequestDto,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<TokenPair | CookieTokens> {
    if (!wantsRefreshCookie(request)) return this.auth.refresh(requiredToken(body));
    try {
      return this.toCookie(request, response, await this.auth.refresh(this.cookieToken(request, body)));
    } catch (error) {
      // A refused cookie (used up, unknown, session ended) is worthless: drop it so the browser stops sending it.
      // Any other failure (a disk error, a 5xx) says nothing about the cookie: keep it, the client retries.
      if (isDomainError(error) && error.kind === ErrorKind.Unauthenticated) this.cookie.clear(request, response);
      throw error;
    }
  }

  /** Public: holding the refresh token is what entitles ending its session. */
  @Public()
  @Post('logout')
  @HttpCode(HttpStatus.NO_CONTENT)
  async logout(
    @Body() body: RefreshRequestDto,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<void> {
    if (!wantsRefreshCookie(request)) return this.auth.logout(requiredToken(body));
    this.cookie.clear(request, response);
    noBodyToken(body);
    const token = this.cookie.read(request);
    // Signing out without a session is already done.
    if (token !== null) await this.auth.logout(token);
  }

  @Operation('Auth/Me')
  @Get('me')
  @Header('Cache-Control', 'no-store')
  me(@CurrentPrincipal() principal: Principal): Promise<PublicUser> {
    return this.auth.me(principal);
  }

  private toCookie(request: Request, response: Response, tokens: TokenPair): CookieTokens {
    this.cookie.set(request, response, tokens.refresh_token, this.config.auth.refreshTtlSeconds);
    return { access_token: tokens.access_token, token_type: tokens.token_type };
  }

  private cookieToken(request: Request, body: RefreshRequestDto): string {
    noBodyToken(body);
    const token = this.cookie.read(request);
    if (token === null) throw AuthErrors.invalidRefreshToken();
    return token;
  }
}

function requiredToken(body: RefreshRequestDto): string {
  if (typeof body.refresh_token !== 'string') throw DomainError.validation(['refresh_token: is required']);
  return body.refresh_token;
}

function noBodyToken(body: RefreshRequestDto): void {
  if (body.refresh_token !== undefined)
    throw DomainError.validation([`refresh_token: must not be sent with ${SESSION_HEADER}: cookie`]);
}
