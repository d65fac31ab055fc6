import { SetMetadata } from '@nestjs/common';
import type { RequiredAccess } from './access.model';

export const IS_PUBLIC_KEY = 'vectorstore:auth:public';
export const REQUIRED_ACCESS_KEY = 'vectorstore:auth:required-access';

/** The handler (or every handler of the class) is open without any credential. Use sparingly. */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC_KEY, true);

/**
 * The access level a handler needs. Handlers without a decorator need `read`; writes declare
 * `RequireAccess('manage')`.
 */
export const RequireAccess = (access: RequiredAccess): MethodDecorator & ClassDecorator =>
  SetMetadata(REQUIRED_ACCESS_KEY, access);
