import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import { DomainError, ErrorKind } from '@vectorstore/common';
import type { Response } from 'express';
import { TransportExceptionFilter } from '../../core/transport-exception.filter';
import { bearerChallenge } from './bearer-challenge';

/** Adds `WWW-Authenticate` to the auth routes' 401s, then answers as the global filter does. */
@Catch(DomainError)
export class BearerChallengeFilter implements ExceptionFilter {
  private readonly fallback = new TransportExceptionFilter();

  catch(exception: DomainError, host: ArgumentsHost): void {
    if (exception.kind === ErrorKind.Unauthenticated && host.getType() === 'http') {
      host.switchToHttp().getResponse<Response>().setHeader('WWW-Authenticate', bearerChallenge(exception.message));
    }
    this.fallback.catch(exception, host);
  }
}
