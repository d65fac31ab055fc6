import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Principal } from '@vectorstore/auth';
import type { Request } from 'express';

/** The verified caller the HTTP guard attached to the request. */
export const CurrentPrincipal = createParamDecorator(
  (_: unknown, context: ExecutionContext): Principal =>
    context.switchToHttp().getRequest<Request & { user: Principal }>().user,
);
