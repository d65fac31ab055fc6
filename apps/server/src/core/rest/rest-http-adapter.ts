import { ExpressAdapter } from '@nestjs/platform-express';
import type { Response } from 'express';
import { RestAnswer } from './rest-envelope';

/**
 * Express as Nest drives it, but a {@link RestAnswer} (every enveloped REST answer) is written directly: status,
 * two headers and one buffer, without `res.send`'s content sniffing, charset rewriting and ETag hashing.
 */
export class RestHttpAdapter extends ExpressAdapter {
  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    if (!(body instanceof RestAnswer)) return super.reply(response, body, statusCode);
    if (statusCode) response.statusCode = statusCode;
    const bytes = Buffer.from(body.text, 'utf8');
    response.setHeader('Content-Type', 'application/json');
    response.setHeader('Content-Length', bytes.byteLength);
    response.end(bytes);
    return undefined;
  }
}
