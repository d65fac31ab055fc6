// Review of issue 27: the REST envelope as a wrapper of each route method (rest-envelope.ts) and the adapter that
// writes a RestAnswer (rest-http-adapter.ts). A small Nest app with the real adapter and exception filter checks what a
// route's decorators ask for survives the wrapping; the app's own controllers are checked for the guard's metadata.
import {
  BadRequestException,
  Get,
  Header,
  HttpCode,
  HttpStatus,
  INestApplication,
  Injectable,
  Module,
  Post,
  Redirect,
  Res,
  SetMetadata,
  Type,
  UseInterceptors,
  CallHandler,
  ExecutionContext,
  NestInterceptor,
} from '@nestjs/common';
import { METHOD_METADATA, MODULE_METADATA } from '@nestjs/common/constants';
import { NestFactory } from '@nestjs/core';
import { IS_PUBLIC_KEY, OPERATION_KEY } from '@vectorstore/auth';
import { DomainError } from '@vectorstore/common';
import type { Response } from 'express';
import type { AddressInfo } from 'node:net';
import { Observable, tap } from 'rxjs';
import { FEATURE_MODULES } from '../../features';
import { TransportExceptionFilter } from '../transport-exception.filter';
import { HttpController } from './http-controller.decorator';
import { RawRestResponse, RestAnswer } from './rest-envelope';
import { RestHttpAdapter } from './rest-http-adapter';

@Injectable()
class Greeting {
  readonly text = 'hello';
}

/** Records what a method interceptor saw come out of the handler. */
const seenByInterceptor: unknown[] = [];
@Injectable()
class RecordingInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(tap((value: unknown) => seenByInterceptor.push(value)));
  }
}

@HttpController('t')
class ProbeController {
  constructor(private readonly greeting: Greeting) {}

  @Post('created')
  created(): unknown {
    return { made: true };
  }

  @Post('accepted')
  @HttpCode(HttpStatus.ACCEPTED)
  accepted(): string {
    return 'queued';
  }

  @Get('header')
  @Header('X-Kept', 'yes')
  @SetMetadata('probe:mark', 'kept')
  header(): string {
    return 'é € 😀';
  }

  @Get('this')
  self(): string {
    return this.greeting.text;
  }

  @Get('bigint')
  big(): bigint {
    return 10n ** 30n;
  }

  @Get('domain-error')
  domainError(): never {
    throw DomainError.notFound('Collection `nope` does not exist!');
  }

  @Get('async-error')
  async asyncError(): Promise<never> {
    await Promise.resolve();
    throw new BadRequestException('bad');
  }

  @Post('passthrough')
  @HttpCode(HttpStatus.OK)
  passthrough(@Res({ passthrough: true }) response: Response): number {
    response.status(HttpStatus.ACCEPTED);
    return 1;
  }

  @Get('redirect')
  @Redirect('/t/this', 302)
  redirect(): void {}

  @Get('raw')
  @RawRestResponse()
  @Header('Content-Type', 'text/plain; charset=utf-8')
  raw(): string {
    return 'plain text';
  }

  @Get('intercepted')
  @UseInterceptors(RecordingInterceptor)
  intercepted(): number {
    return 7;
  }

  /** Not a route: left as it is. */
  helper(): string {
    return 'not wrapped';
  }
}

@Module({ controllers: [ProbeController], providers: [Greeting, RecordingInterceptor] })
class ProbeModule {}

describe('issue 27 review: the envelope wrapper and the adapter (small app)', () => {
  let app: INestApplication;
  let base: string;

  beforeAll(async () => {
    app = await NestFactory.create(ProbeModule, new RestHttpAdapter(), { logger: false });
    app.useGlobalFilters(new TransportExceptionFilter());
    await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  });
  afterAll(async () => app?.close());

  const envelope = (text: string): { result?: unknown; status: unknown; time: unknown } =>
    JSON.parse(text) as { result?: unknown; status: unknown; time: unknown };

  it('should keep POST routes at 201 without @HttpCode, and @HttpCode(202)', async () => {
    const created = await fetch(`${base}/t/created`, { method: 'POST' });
    expect(created.status).toBe(201);
    expect(envelope(await created.text())).toMatchObject({ result: { made: true }, status: 'ok' });
    const accepted = await fetch(`${base}/t/accepted`, { method: 'POST' });
    expect(accepted.status).toBe(202);
    expect(envelope(await accepted.text()).result).toBe('queued');
  });

  it('should keep @Header and SetMetadata, and write non-ASCII answers with their byte length', async () => {
    const answer = await fetch(`${base}/t/header`);
    const bytes = Buffer.from(await answer.arrayBuffer());
    expect(answer.headers.get('x-kept')).toBe('yes');
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(Number(answer.headers.get('content-length'))).toBe(bytes.length);
    expect(envelope(bytes.toString('utf8')).result).toBe('é € 😀');
    expect(answer.headers.get('etag')).toBeNull();
    const handler = (ProbeController.prototype as unknown as Record<string, object>).header;
    expect(Reflect.getMetadata('probe:mark', handler)).toBe('kept');
  });

  it('should answer HEAD with the GET answer length and no body', async () => {
    const get = await fetch(`${base}/t/header`);
    const head = await fetch(`${base}/t/header`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    // The envelope's `time` differs between the two answers, so their lengths may differ by a digit or two.
    expect(
      Math.abs(Number(head.headers.get('content-length')) - Number(get.headers.get('content-length'))),
    ).toBeLessThan(4);
    expect(await head.text()).toBe('');
  });

  it('should call the handler on its controller instance and write bigint exactly', async () => {
    expect(envelope(await (await fetch(`${base}/t/this`)).text()).result).toBe('hello');
    expect(await (await fetch(`${base}/t/bigint`)).text()).toMatch(/^\{"result":1000000000000000000000000000000,/);
  });

  it('should leave errors to the exception filter (thrown or rejected), in its shape', async () => {
    const missing = await fetch(`${base}/t/domain-error`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ status: { error: expect.stringContaining('nope') }, time: 0 });
    const bad = await fetch(`${base}/t/async-error`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ status: { error: 'bad' }, time: 0 });
  });

  it('should keep a status a passthrough handler set, @Redirect, and raw routes as they are', async () => {
    const passthrough = await fetch(`${base}/t/passthrough`, { method: 'POST' });
    expect(passthrough.status).toBe(202);
    expect(envelope(await passthrough.text()).result).toBe(1);
    const redirect = await fetch(`${base}/t/redirect`, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toBe('/t/this');
    const raw = await fetch(`${base}/t/raw`);
    expect(raw.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await raw.text()).toBe('plain text');
  });

  it('should run method interceptors around the enveloped handler (they see the written answer)', async () => {
    seenByInterceptor.length = 0;
    const answer = await fetch(`${base}/t/intercepted`);
    expect(envelope(await answer.text()).result).toBe(7);
    // An interceptor that maps results would now map a RestAnswer: none of the app's enveloped routes has one.
    expect(seenByInterceptor).toHaveLength(1);
    expect(seenByInterceptor[0]).toBeInstanceOf(RestAnswer);
  });

  it('should leave methods that are not routes alone', () => {
    expect(new ProbeController(new Greeting()).helper()).toBe('not wrapped');
  });
});

function controllersOf(module: Type<unknown>): Type<unknown>[] {
  const own = (Reflect.getMetadata(MODULE_METADATA.CONTROLLERS, module) ?? []) as Type<unknown>[];
  const imported = (Reflect.getMetadata(MODULE_METADATA.IMPORTS, module) ?? []) as Type<unknown>[];
  return [...own, ...imported.filter((m) => typeof m === 'function').flatMap(controllersOf)];
}

describe("issue 27 review: the app's routes after wrapping", () => {
  const routes = [...new Set(FEATURE_MODULES.flatMap(controllersOf))].flatMap((controller) => {
    const prototype = controller.prototype as Record<string, unknown>;
    return Object.getOwnPropertyNames(prototype)
      .filter((name) => {
        const value = Object.getOwnPropertyDescriptor(prototype, name)?.value as unknown;
        return typeof value === 'function' && Reflect.hasMetadata(METHOD_METADATA, value);
      })
      .map((name) => ({ controller, name, handler: prototype[name] as object }));
  });

  it('should find the HTTP routes', () => {
    expect(routes.length).toBeGreaterThan(80);
  });

  // The guard reads a route's access from the Operation on the handler (or Public on it or its class): a wrapper that
  // lost it would fail closed (admin only) or, worse, read another route's.
  it.each(routes.map((r) => [`${r.controller.name}.${r.name}`, r] as const))(
    '%s should still declare its access (Operation or Public)',
    (_, route) => {
      const declared =
        Reflect.getMetadata(OPERATION_KEY, route.handler) !== undefined ||
        Reflect.getMetadata(IS_PUBLIC_KEY, route.handler) === true ||
        Reflect.getMetadata(IS_PUBLIC_KEY, route.controller) === true;
      expect(declared).toBe(true);
    },
  );
});
