import { PayloadIndexParams, payloadIndexParamsWithDefaults, TokenizerType } from '@vectorstore/collections';
import { ValidationIssues } from '@vectorstore/common';
import type {
  PayloadIndexParams as ProtoPayloadIndexParams,
  PayloadIndexParams__Output,
} from '../../grpc/generated/vectorstore/PayloadIndexParams';
import { defined, readEnum, readU64 } from '../../core/scalars';

/** proto PayloadIndexParams (oneof index_params) to the domain's tagged union, with the domain's defaults. */
export function payloadIndexParamsFromProto(
  issues: ValidationIssues,
  path: string,
  p: PayloadIndexParams__Output,
): PayloadIndexParams | undefined {
  switch (p.indexParams) {
    case 'keywordIndexParams':
      return { keyword: defined({ ...p.keywordIndexParams }) };
    case 'integerIndexParams':
      return { integer: defined({ ...p.integerIndexParams }) };
    case 'floatIndexParams':
      return { float: defined({ ...p.floatIndexParams }) };
    case 'geoIndexParams':
      return { geo: defined({ ...p.geoIndexParams }) };
    case 'boolIndexParams':
      return { bool: defined({ ...p.boolIndexParams }) };
    case 'datetimeIndexParams':
      return { datetime: defined({ ...p.datetimeIndexParams }) };
    case 'uuidIndexParams':
      return { uuid: defined({ ...p.uuidIndexParams }) };
    case 'textIndexParams': {
      const t = p.textIndexParams ?? {};
      const textPath = `${path}.text_index_params`;
      return payloadIndexParamsWithDefaults({
        text: defined({
          tokenizer: readEnum<TokenizerType>(t.tokenizer, 'Unknown'),
          lowercase: t.lowercase,
          minTokenLen: readU64(issues, `${textPath}.min_token_len`, t.minTokenLen),
          maxTokenLen: readU64(issues, `${textPath}.max_token_len`, t.maxTokenLen),
          onDisk: t.onDisk,
          stopwords: t.stopwords
            ? { languages: t.stopwords.languages ?? [], custom: t.stopwords.custom ?? [] }
            : undefined,
          phraseMatching: t.phraseMatching,
          stemmer: t.stemmer?.snowball ? { snowball: { language: t.stemmer.snowball.language ?? '' } } : undefined,
          asciiFolding: t.asciiFolding,
          enableHnsw: t.enableHnsw,
        }),
      });
    }
    default:
      issues.add(path, 'must set one of the index params');
      return undefined;
  }
}

/** Domain index params to proto. */
export function payloadIndexParamsToProto(p: PayloadIndexParams): ProtoPayloadIndexParams {
  if ('keyword' in p) return { keywordIndexParams: p.keyword };
  if ('integer' in p) return { integerIndexParams: p.integer };
  if ('float' in p) return { floatIndexParams: p.float };
  if ('geo' in p) return { geoIndexParams: p.geo };
  if ('bool' in p) return { boolIndexParams: p.bool };
  if ('datetime' in p) return { datetimeIndexParams: p.datetime };
  if ('uuid' in p) return { uuidIndexParams: p.uuid };
  const { stemmer, ...rest } = p.text;
  return { textIndexParams: defined({ ...rest, stemmer: stemmer ? { snowball: stemmer.snowball } : undefined }) };
}
