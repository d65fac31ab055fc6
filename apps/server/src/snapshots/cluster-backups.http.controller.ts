import {
  Body,
  Delete,
  Get,
  HttpCode,
  HttpStatus,
  Param,
  Post,
  Put,
  Query,
  Res,
  StreamableFile,
  UploadedFile,
  UseInterceptors,
} from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import { Operation } from '@vectorstore/auth';
import { DomainError } from '@vectorstore/common';
import { SnapshotsService, type SnapshotDescription } from '@vectorstore/snapshots';
import type { Response } from 'express';
import { promises as fs } from 'node:fs';
import { HttpController } from '../core/rest/http-controller.decorator';
import { RawRestResponse } from '../core/rest/rest-envelope';
import { RestQuery } from '../core/rest/rest-query';
import { answerSnapshotWork, snapshotFile } from './rest/snapshot-answers';
import { readTextParam, recoverFromRest } from './rest/snapshots.rest-mapper';
import { UploadQueryInterceptor } from './rest/upload-query.interceptor';

/**
 * Cluster backups (`/backups`, not in Qdrant; docs/cluster.md, "Snapshots"): every shard of some or all collections
 * once, from one Active replica each, in one archive with a manifest; restored into a cluster of any size. Access
 * as full snapshots'.
 */
@HttpController('backups')
export class ClusterBackupsHttpController {
  constructor(private readonly snapshots: SnapshotsService) {}

  /** Body (optional): `{"collections": ["a", "b"]}`; every collection when absent. */
  @Operation('Snapshots/CreateFull')
  @RawRestResponse()
  @HttpCode(HttpStatus.OK)
  @Post()
  create(
    @Body() body: unknown,
    @Query() query: RestQuery,
    @Res({ passthrough: true }) response: Response,
  ): Promise<string> {
    const collections = collectionsOf(body);
    return answerSnapshotWork(query, response, () => this.snapshots.createBackup(collections));
  }

  @Operation('Snapshots/ListFull')
  @Get()
  list(): Promise<SnapshotDescription[]> {
    return this.snapshots.listBackups();
  }

  @Operation('Snapshots/DownloadFull')
  @RawRestResponse()
  @Get(':backup_name')
  async download(@Param('backup_name') name: string): Promise<StreamableFile> {
    return snapshotFile(await this.snapshots.downloadBackup(name));
  }

  @Operation('Snapshots/DeleteFull')
  @RawRestResponse()
  @Delete(':backup_name')
  delete(
    @Param('backup_name') name: string,
    @Query() query: RestQuery,
    @Res({ passthrough: true }) response: Response,
  ): Promise<string> {
    return answerSnapshotWork(query, response, async () => {
      await this.snapshots.deleteBackup(name);
      return true;
    });
  }

  /** Restores a backup from `{location, checksum?, api_key?}`; answers the restored collections' names. */
  @Operation('Snapshots/RecoverFull')
  @RawRestResponse()
  @Put('recover')
  recover(
    @Body() body: unknown,
    @Query() query: RestQuery,
    @Res({ passthrough: true }) response: Response,
  ): Promise<string> {
    const { location, checksum, apiKey } = recoverFromRest('', body);
    return answerSnapshotWork(query, response, () => this.snapshots.recoverBackup({ location, checksum, apiKey }));
  }

  /** As {@link recover}, from a multipart upload (field `snapshot`, `?checksum`). */
  @Operation('Snapshots/UploadFull')
  @RawRestResponse()
  @HttpCode(HttpStatus.OK)
  @Post('upload')
  @UseInterceptors(UploadQueryInterceptor, FileInterceptor('snapshot'))
  async upload(
    @UploadedFile() file: { path: string } | undefined,
    @Query() query: RestQuery,
    @Res({ passthrough: true }) response: Response,
  ): Promise<string> {
    if (file === undefined) throw DomainError.invalidArgument('Bad request: the form has no `snapshot` file');
    const checksum = readTextParam(query, 'checksum');
    return answerSnapshotWork(query, response, async () => {
      try {
        return await this.snapshots.restoreBackupArchive(file.path, checksum);
      } finally {
        await fs.rm(file.path, { force: true });
      }
    });
  }
}

function collectionsOf(body: unknown): string[] | undefined {
  if (body === undefined || body === null || (typeof body === 'object' && Object.keys(body).length === 0))
    return undefined;
  const collections = (body as { collections?: unknown }).collections;
  if (
    typeof body !== 'object' ||
    Array.isArray(body) ||
    (collections !== undefined && (!Array.isArray(collections) || !collections.every((c) => typeof c === 'string')))
  )
    throw DomainError.invalidArgument('Bad request: the body must be {"collections": [names]} or empty');
  return collections as string[] | undefined;
}
