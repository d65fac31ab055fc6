import { Memory, PayloadIndexParams, payloadIndexParamsWithDefaults, TokenizerType } from '@vectorstore/collections';
import { ValidationIssues } from '@vectorstore/common';
import type {
  PayloadIndexParams as ProtoPayloadIndexParams,
  PayloadIndexParams__Output,
} from '../../grpc/generated/vectorstore/PayloadIndexParams';
import { defined, readEnum, readU64 } from '../../core/scalars';
import { readMemory } from './collection-config.mapper';

/** An index's `on_disk` and `memory`, the fields every kind of index has. */
function placement(params: { onDisk?: boolean; memory?: string } | undefined): { onDisk?: boolean; memory?: Memory } {
  return { onDisk: params?.onDisk, memory: readMemory(params?.memory) };
}

/**
 * proto PayloadIndexParams (oneof index_params) to the domain's tagged union, with the domain's
 * defaults. Fields are picked one by one: decoded messages also carry proto-loader's oneof markers.
 */
export function payloadIndexParamsFromProto(
  issues: ValidationIssues,
  path: string,
  p: PayloadIndexParams__Output,
): PayloadIndexParams | undefined {
  switch (p.indexParams) {
    case 'keywordIndexParams': {
      const k = p.keywordIndexParams ?? {};
      return { keyword: defined({ isTenant: k.isTenant, ...placement(k), enableHnsw: k.enableHnsw }) };
    }
    case 'integerIndexParams': {
      const i = p.integerIndexParams ?? {};
      return {
        integer: defined({
          lookup: i.lookup,
          range: i.range,
          isPrincipal: i.isPrincipal,
          ...placement(i),
          enableHnsw: i.enableHnsw,
        }),
      };
    }
    case 'floatIndexParams': {
      const f = p.floatIndexParams ?? {};
      return { float: defined({ ...placement(f), isPrincipal: f.isPrincipal, enableHnsw: f.enableHnsw }) };
    }
    case 'geoIndexParams':
      return { geo: defined({ ...placement(p.geoIndexParams), enableHnsw: p.geoIndexParams?.enableHnsw }) };
    case 'boolIndexParams':
      return { bool: defined({ ...placement(p.boolIndexParams), enableHnsw: p.boolIndexParams?.enableHnsw }) };
    case 'datetimeIndexParams': {
      const d = p.datetimeIndexParams ?? {};
      return { datetime: defined({ ...placement(d), isPrincipal: d.isPrincipal, enableHnsw: d.enableHnsw }) };
    }
    case 'uuidIndexParams': {
      const u = p.uuidIndexParams ?? {};
      return { uuid: defined({ isTenant: u.isTenant, ...placement(u), enableHnsw: u.enableHnsw }) };
    }
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
          memory: readMemory(t.memory),
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
  // `prefix` is a message in Qdrant's gRPC (KeywordPrefixParams), not carried by our proto: REST only.
  if ('keyword' in p) {
    const { prefix: _restOnly, ...keyword } = p.keyword;
    return { keywordIndexParams: keyword };
  }
  if ('integer' in p) return { integerIndexParams: p.integer };
  if ('float' in p) return { floatIndexParams: p.float };
  if ('geo' in p) return { geoIndexParams: p.geo };
  if ('bool' in p) return { boolIndexParams: p.bool };
  if ('datetime' in p) return { datetimeIndexParams: p.datetime };
  if ('uuid' in p) return { uuidIndexParams: p.uuid };
  const { stemmer, ...rest } = p.text;
  return { textIndexParams: defined({ ...rest, stemmer: stemmer ? { snowball: stemmer.snowball } : undefined }) };
}
