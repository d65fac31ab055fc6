import { Get, Header } from '@nestjs/common';
import { Public } from '@vectorstore/auth';
import { RawRestResponse } from '../core/rest/rest-envelope';
import { SERVER_COMMIT, SERVER_TITLE, SERVER_VERSION } from '../version';
import { HttpController } from '../core/rest/http-controller.decorator';

/** Qdrant's probes and version, with its exact texts; open without credentials and outside the envelope. */
@Public()
@HttpController()
export class HealthHttpController {
  @Get('healthz')
  @RawRestResponse()
  @Header('Content-Type', 'text/plain; charset=utf-8')
  healthz(): string {
    return 'healthz check passed';
  }

  /** Qdrant answers its liveness probe with the healthz text. */
  @Get('livez')
  @RawRestResponse()
  @Header('Content-Type', 'text/plain; charset=utf-8')
  livez(): string {
    return 'healthz check passed';
  }

  /** Ready once Nest has started, which happens only after the catalog has loaded. */
  @Get('readyz')
  @RawRestResponse()
  @Header('Content-Type', 'text/plain; charset=utf-8')
  readyz(): string {
    return 'all shards are ready';
  }

  @Get()
  @RawRestResponse()
  root(): { title: string; version: string; commit: string } {
    return { title: SERVER_TITLE, version: SERVER_VERSION, commit: SERVER_COMMIT };
  }
}
