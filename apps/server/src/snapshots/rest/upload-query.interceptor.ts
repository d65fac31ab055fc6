import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { checkChecksumParam, checkPriority } from '@vectorstore/snapshots';
import type { Request } from 'express';
import { Observable } from 'rxjs';
import { readTextParam } from './snapshots.rest-mapper';

/**
 * Checks an upload's query (`?checksum`, `?priority`) before the multipart body is read, as Qdrant
 * validates its query first: a malformed checksum is refused without spooling the archive to disk.
 * Listed before the FileInterceptor (interceptors run in order).
 */
@Injectable()
export class UploadQueryInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const query = context.switchToHttp().getRequest<Request>().query as Record<string, unknown>;
    checkChecksumParam(readTextParam(query, 'checksum'));
    checkPriority(readTextParam(query, 'priority'));
    return next.handle();
  }
}
