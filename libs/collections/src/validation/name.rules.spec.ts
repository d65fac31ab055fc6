import { DomainError, httpMessageOf, httpStatusOf, ValidationIssues } from '@vectorstore/common';
import {
  checkAliasName,
  checkCollectionNameReference,
  checkNewCollectionName,
  checkVectorName,
  MAX_NAME_CHARS,
  validateCollectionName,
} from './name.rules';

function issuesOf(check: (issues: ValidationIssues) => void): string | undefined {
  const issues = new ValidationIssues();
  check(issues);
  try {
    issues.throwIfAny();
  } catch (error) {
    return (error as Error).message;
  }
  return undefined;
}

const STRICT_ONLY = ['<', '>', ':', '"', '\\', '|', '?', '*', '\u001f'];

describe('checkNewCollectionName', () => {
  it('should accept an ordinary name', () => {
    expect(issuesOf((i) => checkNewCollectionName(i, 'collection_name', 'my-collection_1.v2'))).toBeUndefined();
  });

  it('should reject an empty name with the length rule', () => {
    expect(issuesOf((i) => checkNewCollectionName(i, 'collection_name', ''))).toBe(
      'Validation error in body: [collection_name: length 0 invalid, must be from 1 to 255 characters]',
    );
  });

  it('should accept 255 characters and reject 256', () => {
    expect(MAX_NAME_CHARS).toBe(255);
    expect(issuesOf((i) => checkNewCollectionName(i, 'collection_name', 'a'.repeat(255)))).toBeUndefined();
    expect(issuesOf((i) => checkNewCollectionName(i, 'collection_name', 'a'.repeat(256)))).toContain(
      'collection_name: length 256 invalid, must be from 1 to 255 characters',
    );
  });

  it('should count characters, not bytes or UTF-16 units', () => {
    const emoji255 = '😀'.repeat(255);
    expect(emoji255.length).toBe(510);

    expect(issuesOf((i) => checkNewCollectionName(i, 'collection_name', emoji255))).toBeUndefined();
    expect(issuesOf((i) => checkNewCollectionName(i, 'collection_name', '😀'.repeat(256)))).toContain(
      'length 256 invalid',
    );
  });

  it.each([...STRICT_ONLY, '/', '\0'])('should reject a name containing %p', (c) => {
    expect(issuesOf((i) => checkNewCollectionName(i, 'collection_name', `a${c}b`))).toMatch(
      /^Validation error in body: \[collection_name: collection name cannot contain .* char\]$/,
    );
  });

  it("should report a forbidden character in Qdrant's wording", () => {
    expect(issuesOf((i) => checkNewCollectionName(i, 'collection_name', 'a<b'))).toBe(
      'Validation error in body: [collection_name: collection name cannot contain "<" char]',
    );
  });

  // Qdrant formats the message as `collection name cannot contain "{c}" char` (no escaping).
  it.each([
    ['\\', 'collection name cannot contain "\\" char'],
    ['"', 'collection name cannot contain """ char'],
  ])("should quote %p without JSON escaping, as Qdrant's message does", (c, expected) => {
    expect(issuesOf((i) => checkNewCollectionName(i, 'collection_name', `a${c}b`))).toBe(
      `Validation error in body: [collection_name: ${expected}]`,
    );
  });

  it('should report both a bad length and a forbidden character', () => {
    const message = issuesOf((i) => checkNewCollectionName(i, 'collection_name', ':'.repeat(256)));

    expect(message).toContain('length 256 invalid');
    expect(message).toContain('cannot contain ":" char');
  });
});

describe('checkCollectionNameReference', () => {
  it.each(STRICT_ONLY)('should accept a legacy name containing %p', (c) => {
    expect(issuesOf((i) => checkCollectionNameReference(i, 'collection_name', `old${c}name`))).toBeUndefined();
  });

  it.each(['/', '\0'])('should still reject %p', (c) => {
    expect(issuesOf((i) => checkCollectionNameReference(i, 'collection_name', `a${c}b`))).toContain(
      'collection name cannot contain',
    );
  });

  it('should apply the length rule', () => {
    expect(issuesOf((i) => checkCollectionNameReference(i, 'collection_name', ''))).toContain('length 0 invalid');
    expect(issuesOf((i) => checkCollectionNameReference(i, 'collection_name', 'x'.repeat(256)))).toContain(
      'length 256 invalid',
    );
  });
});

describe('checkAliasName', () => {
  it('should accept legacy characters and reject "/"', () => {
    expect(issuesOf((i) => checkAliasName(i, 'alias_name', 'a:b'))).toBeUndefined();
    expect(issuesOf((i) => checkAliasName(i, 'alias_name', 'a/b'))).toBe(
      'Validation error in body: [alias_name: alias name cannot contain "/" char]',
    );
  });

  it('should reject an empty alias name', () => {
    expect(issuesOf((i) => checkAliasName(i, 'alias_name', ''))).toContain('alias_name: length 0 invalid');
  });
});

describe('checkVectorName', () => {
  it('should accept 200 bytes and reject 201', () => {
    expect(issuesOf((i) => checkVectorName(i, 'v', 'a'.repeat(200), 'dense'))).toBeUndefined();
    expect(issuesOf((i) => checkVectorName(i, 'v', 'a'.repeat(201), 'dense'))).toContain('Invalid dense vector name `');
  });

  it('should count bytes, not characters', () => {
    const name = 'é'.repeat(101); // 101 characters, 202 bytes

    expect(issuesOf((i) => checkVectorName(i, 'v', name, 'sparse'))).toContain(
      `Invalid sparse vector name \`${name}\`: must be at most 200 bytes`,
    );
  });

  it('should reject an empty sparse vector name', () => {
    expect(issuesOf((i) => checkVectorName(i, 'sparse_vectors_config.map.', '', 'sparse'))).toBe(
      'Validation error in body: [sparse_vectors_config.map.: Sparse vector name cannot be empty]',
    );
  });

  it.each(STRICT_ONLY)('should reject a vector name containing %p', (c) => {
    expect(issuesOf((i) => checkVectorName(i, 'v', `x${c}`, 'dense'))).toContain('Invalid dense vector name');
  });
});

describe('validateCollectionName', () => {
  function errorOf(call: () => void): DomainError | undefined {
    try {
      call();
    } catch (error) {
      return error as DomainError;
    }
    return undefined;
  }

  it('should pass a valid name', () => {
    expect(errorOf(() => validateCollectionName('docs', 'new', 'path'))).toBeUndefined();
    expect(errorOf(() => validateCollectionName('a:b', 'reference', 'path'))).toBeUndefined();
  });

  it('should apply the strict rules to a new name and the legacy ones to a reference', () => {
    expect(errorOf(() => validateCollectionName('a:b', 'new'))?.message).toBe(
      'Validation error in body: [collection_name: collection name cannot contain ":" char]',
    );
    expect(errorOf(() => validateCollectionName('a/b', 'reference'))?.message).toBe(
      'Validation error in body: [collection_name: collection name cannot contain "/" char]',
    );
  });

  it('should report where the name was given, for REST to say so (422, in path parameters)', () => {
    const error = errorOf(() => validateCollectionName('', 'reference', 'path'))!;
    expect(httpStatusOf(error)).toBe(422);
    expect(httpMessageOf(error)).toBe(
      'Validation error in path parameters: [collection_name: length 0 invalid, must be from 1 to 255 characters]',
    );
  });
});
