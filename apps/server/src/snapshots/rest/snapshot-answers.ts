import { Logger, StreamableFile } from '@nestjs/common';
import type { OpenedSnapshot } from '@vectorstore/snapshots';
import type { Response } from 'express';
import { stringifyRestJson } from '../../core/rest/rest-json';
import { readBoolParam, RestQuery } from '../../core/rest/rest-query';

const logger = new Logger('Snapshots');

/**
 * Runs `work` and answers its result in the REST envelope; with `?wait=false` (the default is true
 * for snapshots, as in Qdrant) answers 202 `{"result": null, "status": "accepted"}` at once while
 * the work goes on (a failure is then only logged).
 */
export async function answerSnapshotWork(
  query: RestQuery,
  response: Response,
  work: () => Promise<unknown>,
): Promise<string> {
  const wait = readBoolParam(query, 'wait') ?? true;
  const started = process.hrtime.bigint();
  const elapsed = (): number => Number(process.hrtime.bigint() - started) / 1e9;
  response.setHeader('Content-Type', 'application/json');
  if (!wait) {
    work().catch((error: unknown) => logger.error({ err: error }, 'snapshot operation failed'));
    response.status(202);
    return stringifyRestJson({ result: null, status: 'accepted', time: elapsed() });
  }
  const result = await work();
  return stringifyRestJson({ result, status: 'ok', time: elapsed() });
}

/** A snapshot download: the archive's bytes as they are read from disk. */
export function snapshotFile(opened: OpenedSnapshot): StreamableFile {
  return new StreamableFile(opened.stream, {
    type: 'application/octet-stream',
    length: opened.description.size,
    disposition: `attachment; filename="${opened.description.name}"`,
  });
}
