import { DomainError, ErrorKind } from './domain-error';
import { ValidationIssues } from './validation-issues';

function messageOf(issues: ValidationIssues): string {
  try {
    issues.throwIfAny();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected throwIfAny to throw');
}

describe(ValidationIssues.name, () => {
  describe('add', () => {
    it('should record the issue as "path: message"', () => {
      const issues = new ValidationIssues();
      issues.add('vectors_config.params.size', 'bad');

      expect(messageOf(issues)).toBe('Validation error in body: [vectors_config.params.size: bad]');
    });
  });

  describe('empty', () => {
    it('should be true before any issue and false after one', () => {
      const issues = new ValidationIssues();
      expect(issues.empty).toBe(true);

      issues.add('x', 'y');

      expect(issues.empty).toBe(false);
    });
  });

  describe('throwIfAny', () => {
    it('should not throw when there are no issues', () => {
      expect(() => new ValidationIssues().throwIfAny()).not.toThrow();
    });

    it('should throw one InvalidArgument DomainError listing every issue in order', () => {
      const issues = new ValidationIssues();
      issues.add('a', 'first');
      issues.add('b', 'second');

      let thrown: unknown;
      try {
        issues.throwIfAny();
      } catch (error) {
        thrown = error;
      }

      expect(thrown).toBeInstanceOf(DomainError);
      expect((thrown as DomainError).kind).toBe(ErrorKind.InvalidArgument);
      expect((thrown as DomainError).message).toBe('Validation error in body: [a: first; b: second]');
    });
  });

  describe('range', () => {
    it('should accept undefined and values on the bounds', () => {
      const issues = new ValidationIssues();
      issues.range('a', undefined, 1, 10);
      issues.range('b', 1, 1, 10);
      issues.range('c', 10, 1, 10);
      issues.range('d', 1e9, 1);

      expect(issues.empty).toBe(true);
    });

    it('should report a value below a lower-only bound in Qdrant wording', () => {
      const issues = new ValidationIssues();
      issues.range('timeout', 0, 1);

      expect(messageOf(issues)).toBe('Validation error in body: [timeout: value 0 invalid, must be 1 or larger]');
    });

    it('should report a value outside a two-sided bound in Qdrant wording', () => {
      const issues = new ValidationIssues();
      issues.range('size', 65537, 1, 65536);

      expect(messageOf(issues)).toBe('Validation error in body: [size: value 65537 invalid, must be from 1 to 65536]');
    });

    it('should reject non-finite values', () => {
      const issues = new ValidationIssues();
      issues.range('a', Number.NaN, 0);
      issues.range('b', Number.POSITIVE_INFINITY, 0);

      expect(messageOf(issues)).toBe(
        'Validation error in body: [a: value NaN invalid, must be an integer; b: value Infinity invalid, must be an integer]',
      );
    });
  });

  describe('between', () => {
    it('should accept inclusive bounds and undefined', () => {
      const issues = new ValidationIssues();
      issues.between('q', 0.5, 0.5, 1);
      issues.between('q', 1, 0.5, 1);
      issues.between('q', undefined, 0.5, 1);

      expect(issues.empty).toBe(true);
    });

    it('should report values outside the bounds', () => {
      const issues = new ValidationIssues();
      issues.between('quantile', 0.4, 0.5, 1);
      issues.between('quantile', 1.1, 0.5, 1);

      expect(messageOf(issues)).toBe(
        'Validation error in body: [quantile: value 0.4 invalid, must be from 0.5 to 1; quantile: value 1.1 invalid, must be from 0.5 to 1]',
      );
    });

    it('should reject NaN', () => {
      const issues = new ValidationIssues();
      issues.between('x', Number.NaN, 0, 1);

      expect(issues.empty).toBe(false);
    });
  });

  describe('oneOf', () => {
    it('should accept an allowed value and undefined', () => {
      const issues = new ValidationIssues();
      issues.oneOf('distance', 'Dot', ['Cosine', 'Dot']);
      issues.oneOf('distance', undefined, ['Cosine', 'Dot']);

      expect(issues.empty).toBe(true);
    });

    it('should list the allowed values when the value is not one of them', () => {
      const issues = new ValidationIssues();
      issues.oneOf('distance', 'Hamming', ['Cosine', 'Dot']);

      expect(messageOf(issues)).toBe(
        'Validation error in body: [distance: value Hamming invalid, must be one of Cosine, Dot]',
      );
    });

    it('should be case-sensitive', () => {
      const issues = new ValidationIssues();
      issues.oneOf('distance', 'cosine', ['Cosine']);

      expect(issues.empty).toBe(false);
    });
  });
});
