import { SetMetadata } from '@nestjs/common';
import type { OperationName } from './operations';

export const IS_PUBLIC_KEY = 'vectorstore:auth:public';
export const OPERATION_KEY = 'vectorstore:auth:operation';

/** The handler (or every handler of the class) is open without any credential. Use sparingly. */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC_KEY, true);

/**
 * The operation a handler serves, on whichever transport; its access comes from
 * {@link OPERATION_ACCESS}. Every non-public handler declares one (a spec checks it).
 */
export const Operation = (operation: OperationName): MethodDecorator => SetMetadata(OPERATION_KEY, operation);
