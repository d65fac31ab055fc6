import { Controller, Get } from '@nestjs/common';
import { Public } from '@vectorstore/auth';
import { SERVER_TITLE, SERVER_VERSION } from '../version';

/** Kubernetes-style probes and Qdrant's `GET /healthz`; open without credentials. */
@Public()
@Controller()
export class HealthHttpController {
  @Get('healthz')
  healthz(): string {
    return 'healthz check passed';
  }

  @Get('livez')
  livez(): string {
    return 'livez check passed';
  }

  /** Ready once Nest has started, which happens only after the catalog has loaded. */
  @Get('readyz')
  readyz(): string {
    return 'all shards are ready';
  }

  @Get()
  root(): { title: string; version: string } {
    return { title: SERVER_TITLE, version: SERVER_VERSION };
  }
}
