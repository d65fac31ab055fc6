import { ErrorKind } from '@vectorstore/common';
import { Type } from 'class-transformer';
import { IsInt, IsString, Min, ValidateNested } from 'class-validator';
import { DtoValidationPipe } from './dto-validation.pipe';

class LimitsDto {
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be 1 or larger' })
  max!: number;
}

class SampleDto {
  @IsString({ message: 'must be a string' })
  name!: string;

  @ValidateNested()
  @Type(() => LimitsDto)
  limits!: LimitsDto;
}

describe(DtoValidationPipe.name, () => {
  const pipe = new DtoValidationPipe();
  const transform = (value: unknown, type: 'body' | 'query' = 'body'): Promise<unknown> =>
    Promise.resolve().then(() => pipe.transform(value, { type, metatype: SampleDto }));

  describe('transform', () => {
    it('should turn a valid body into the DTO class', async () => {
      const dto = await transform({ name: 'a', limits: { max: 2 } });
      expect(dto).toBeInstanceOf(SampleDto);
      expect((dto as SampleDto).limits).toBeInstanceOf(LimitsDto);
    });

    it('should report every problem as one InvalidArgument, nested fields by their dotted path', async () => {
      await expect(transform({ name: 1, limits: { max: 0, other: 1 }, extra: true })).rejects.toMatchObject({
        kind: ErrorKind.InvalidArgument,
        validationIssues: [
          'extra: unknown property',
          'name: must be a string',
          'limits.other: unknown property',
          'limits.max: must be 1 or larger',
        ],
      });
    });

    it('should refuse a body that is not a JSON object, and read a missing one as empty', async () => {
      await expect(transform('text')).rejects.toMatchObject({
        message: 'Validation error in body: [body: must be a JSON object]',
      });
      await expect(transform(undefined)).rejects.toMatchObject({
        message: expect.stringContaining('name: must be a string') as unknown,
      });
    });

    it('should leave parameters other than the body alone', async () => {
      await expect(transform('anything', 'query')).resolves.toBe('anything');
    });
  });
});
