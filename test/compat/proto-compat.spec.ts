/**
 * Wire-compatibility check of our .proto files (package `vectorstore`) against Qdrant 1.19.
 *
 * The reference is the set of FileDescriptorProtos embedded (base64, in `fileDesc("...")`) in the
 * `@qdrant/js-client-grpc` package. They are decoded here with protobufjs and compared, message by
 * message, with our protos as loaded by protobufjs. Names are compared without the package.
 */
import * as fs from 'fs';
import * as path from 'path';
import * as protobuf from 'protobufjs';
import 'protobufjs/ext/descriptor';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const PROTO_ROOT = path.join(REPO_ROOT, 'proto');
const QDRANT_PROTO_DIR = path.join(REPO_ROOT, 'node_modules', '@qdrant', 'js-client-grpc', 'dist', 'cjs', 'proto');
// common_pb.js is a stale leftover in the client package and is deliberately not used.
const QDRANT_FILES = [
  'json_with_int',
  'qdrant_common',
  'collections',
  'collections_service',
  'points',
  'points_service',
  'qdrant',
];
const OUR_FILES = [
  'vectorstore/json_with_int.proto',
  'vectorstore/common.proto',
  'vectorstore/collections.proto',
  'vectorstore/collections_service.proto',
  'vectorstore/points.proto',
  'vectorstore/points_service.proto',
  'vectorstore/qdrant.proto',
];
const OUR_SERVICES = ['Collections', 'Points', 'Qdrant'];

/** Messages of the spec's area A (collection management). */
const SPEC_MESSAGES = [
  'VectorParams',
  'VectorParamsDiff',
  'VectorParamsMap',
  'VectorParamsDiffMap',
  'VectorsConfig',
  'VectorsConfigDiff',
  'MultiVectorConfig',
  'SparseVectorParams',
  'SparseVectorConfig',
  'SparseIndexConfig',
  'HnswConfigDiff',
  'WalConfigDiff',
  'OptimizersConfigDiff',
  'MaxOptimizationThreads',
  'ScalarQuantization',
  'ProductQuantization',
  'BinaryQuantizationQueryEncoding',
  'BinaryQuantization',
  'QuantizationConfig',
  'Disabled',
  'QuantizationConfigDiff',
  'StrictModeConfig',
  'StrictModeSparseConfig',
  'StrictModeSparse',
  'StrictModeMultivectorConfig',
  'StrictModeMultivector',
  'CollectionParams',
  'CollectionParamsDiff',
  'CollectionConfig',
  'CollectionInfo',
  'OptimizerStatus',
  'CollectionWarning',
  'UpdateQueueInfo',
  'CollectionDescription',
  'CollectionExists',
  'PayloadSchemaInfo',
  'PayloadIndexParams',
  'KeywordIndexParams',
  'IntegerIndexParams',
  'FloatIndexParams',
  'GeoIndexParams',
  'TextIndexParams',
  'BoolIndexParams',
  'DatetimeIndexParams',
  'UuidIndexParams',
  'StopwordsSet',
  'StemmingAlgorithm',
  'SnowballParams',
  'ShardKey',
  'LocalShardInfo',
  'RemoteShardInfo',
  'ShardTransferInfo',
  'ReshardingInfo',
  'Replica',
  'ShardKeyDescription',
  'AliasDescription',
  'GetCollectionInfoRequest',
  'GetCollectionInfoResponse',
  'CollectionExistsRequest',
  'CollectionExistsResponse',
  'ListCollectionsRequest',
  'ListCollectionsResponse',
  'CreateCollection',
  'UpdateCollection',
  'DeleteCollection',
  'CollectionOperationResponse',
  'ChangeAliases',
  'AliasOperations',
  'CreateAlias',
  'RenameAlias',
  'DeleteAlias',
  'ListAliasesRequest',
  'ListAliasesResponse',
  'ListCollectionAliasesRequest',
  'CollectionClusterInfoRequest',
  'CollectionClusterInfoResponse',
  'UpdateCollectionClusterSetupRequest',
  'UpdateCollectionClusterSetupResponse',
  'MoveShard',
  'ReplicateShard',
  'AbortShardTransfer',
  'RestartTransfer',
  'ReplicatePoints',
  'CreateShardKey',
  'DeleteShardKey',
  'CreateShardKeyRequest',
  'CreateShardKeyResponse',
  'DeleteShardKeyRequest',
  'DeleteShardKeyResponse',
  'ListShardKeysRequest',
  'ListShardKeysResponse',
];

/** Enums of the spec's area A, with their exact values. */
const SPEC_ENUMS: Record<string, Record<string, number>> = {
  Datatype: { Default: 0, Float32: 1, Uint8: 2, Float16: 3 },
  Distance: { UnknownDistance: 0, Cosine: 1, Euclid: 2, Dot: 3, Manhattan: 4 },
  Modifier: { None: 0, Idf: 1 },
  MultiVectorComparator: { MaxSim: 0 },
  CollectionStatus: { UnknownCollectionStatus: 0, Green: 1, Yellow: 2, Red: 3, Grey: 4 },
  PayloadSchemaType: {
    UnknownType: 0,
    Keyword: 1,
    Integer: 2,
    Float: 3,
    Geo: 4,
    Text: 5,
    Bool: 6,
    Datetime: 7,
    Uuid: 8,
  },
  QuantizationType: { UnknownQuantization: 0, Int8: 1 },
  CompressionRatio: { x4: 0, x8: 1, x16: 2, x32: 3, x64: 4 },
  BinaryQuantizationEncoding: { OneBit: 0, TwoBits: 1, OneAndHalfBits: 2 },
  'BinaryQuantizationQueryEncoding.Setting': { Default: 0, Binary: 1, Scalar4Bits: 2, Scalar8Bits: 3 },
  'MaxOptimizationThreads.Setting': { Auto: 0 },
  ShardingMethod: { Auto: 0, Custom: 1 },
  TokenizerType: { Unknown: 0, Prefix: 1, Whitespace: 2, Word: 3, Multilingual: 4 },
  ReplicaState: {
    Active: 0,
    Dead: 1,
    Partial: 2,
    Initializing: 3,
    Listener: 4,
    PartialSnapshot: 5,
    Recovery: 6,
    Resharding: 7,
    ReshardingScaleDown: 8,
    ActiveRead: 9,
    ManualRecovery: 10,
  },
  ReshardingDirection: { Up: 0, Down: 1 },
  ShardTransferMethod: { StreamRecords: 0, Snapshot: 1, WalDelta: 2, ReshardingStreamRecords: 3 },
};

/** Reserved field numbers the spec states. */
const SPEC_RESERVED: Record<string, number[]> = {
  CreateCollection: [2, 3, 13],
  CollectionParams: [1, 2],
  CollectionInfo: [3, 5, 6],
};

// ---------------------------------------------------------------------------------------------
// Normalized model, shared by both sides
// ---------------------------------------------------------------------------------------------

interface NormField {
  name: string;
  number: number;
  /** scalar type name (`uint64`), or message/enum name without package (`MaxOptimizationThreads.Setting`) */
  type: string;
  repeated: boolean;
  /** `key,value` for map fields */
  map: string | null;
  /** name of the real (non-synthetic) oneof the field belongs to */
  oneof: string | null;
  /** proto3 `optional` (explicit presence) */
  optional: boolean;
}

interface NormMessage {
  name: string;
  fields: Map<string, NormField>;
  reserved: Set<number>;
}

interface NormMethod {
  request: string;
  response: string;
  streaming: boolean;
}

interface NormModel {
  messages: Map<string, NormMessage>;
  enums: Map<string, Map<string, number>>;
  services: Map<string, Map<string, NormMethod>>;
  /** message names per source file (Qdrant side only) */
  messagesByFile: Map<string, string[]>;
  enumsByFile: Map<string, string[]>;
}

function emptyModel(): NormModel {
  return {
    messages: new Map(),
    enums: new Map(),
    services: new Map(),
    messagesByFile: new Map(),
    enumsByFile: new Map(),
  };
}

function stripPackage(fullName: string, pkg: string): string {
  const name = fullName.startsWith('.') ? fullName.slice(1) : fullName;
  return name.startsWith(`${pkg}.`) ? name.slice(pkg.length + 1) : name;
}

function describeField(f: NormField): string {
  const parts = [`#${f.number}`, f.map ? `map<${f.map}>` : f.type];
  if (f.repeated) parts.push('repeated');
  if (f.optional) parts.push('optional');
  if (f.oneof) parts.push(`oneof ${f.oneof}`);
  return parts.join(' ');
}

// ---------------------------------------------------------------------------------------------
// Qdrant side: decode the embedded FileDescriptorProtos
// ---------------------------------------------------------------------------------------------

interface QField {
  name: string;
  number: number;
  label?: string;
  type: string;
  typeName?: string;
  oneofIndex?: number;
  proto3Optional?: boolean;
}
interface QMessage {
  name: string;
  field?: QField[];
  nestedType?: QMessage[];
  enumType?: QEnum[];
  oneofDecl?: { name: string }[];
  options?: { mapEntry?: boolean };
  reservedRange?: { start: number; end: number }[];
}
interface QEnum {
  name: string;
  value?: { name: string; number: number }[];
}
interface QService {
  name: string;
  method?: {
    name: string;
    inputType: string;
    outputType: string;
    clientStreaming?: boolean;
    serverStreaming?: boolean;
  }[];
}
interface QFile {
  name: string;
  package: string;
  messageType?: QMessage[];
  enumType?: QEnum[];
  service?: QService[];
}

const descriptorRoot = protobuf.loadSync(require.resolve('protobufjs/google/protobuf/descriptor.proto'));
const FileDescriptorProto = descriptorRoot.lookupType('google.protobuf.FileDescriptorProto');
const FileDescriptorSet = descriptorRoot.lookupType('google.protobuf.FileDescriptorSet');

function readQdrantDescriptorBytes(file: string): Uint8Array {
  const src = fs.readFileSync(path.join(QDRANT_PROTO_DIR, `${file}_pb.js`), 'utf8');
  const match = /fileDesc\)?\(\s*"([^"]+)"/.exec(src);
  if (!match) throw new Error(`no fileDesc("...") in ${file}_pb.js`);
  return Buffer.from(match[1], 'base64');
}

function decodeQdrantFile(file: string): QFile {
  const msg = FileDescriptorProto.decode(readQdrantDescriptorBytes(file));
  return FileDescriptorProto.toObject(msg, { enums: String, longs: Number, defaults: false }) as QFile;
}

function qdrantScalar(type: string): string {
  return type.replace(/^TYPE_/, '').toLowerCase();
}

function buildQdrantModel(files: QFile[]): NormModel {
  const model = emptyModel();
  // map entry types are recognized by their full name
  const mapEntries = new Map<string, QMessage>();
  const collectEntries = (prefix: string, msgs: QMessage[] | undefined): void => {
    for (const m of msgs ?? []) {
      const full = `${prefix}.${m.name}`;
      if (m.options?.mapEntry) mapEntries.set(full, m);
      collectEntries(full, m.nestedType);
    }
  };
  for (const f of files) collectEntries(`.${f.package}`, f.messageType);

  const typeOf = (f: QField, pkg: string): string =>
    f.typeName ? stripPackage(f.typeName, pkg) : qdrantScalar(f.type);

  for (const file of files) {
    const pkg = file.package;
    const msgNames: string[] = [];
    const enumNames: string[] = [];
    const addEnum = (name: string, e: QEnum): void => {
      model.enums.set(name, new Map((e.value ?? []).map((v) => [v.name, v.number])));
      enumNames.push(name);
    };
    const addMessage = (prefix: string, m: QMessage): void => {
      if (m.options?.mapEntry) return;
      const name = prefix ? `${prefix}.${m.name}` : m.name;
      const fields = new Map<string, NormField>();
      for (const f of m.field ?? []) {
        const entry = f.typeName ? mapEntries.get(f.typeName) : undefined;
        const synthetic = f.proto3Optional === true;
        let map: string | null = null;
        if (entry) {
          const [k, v] = entry.field ?? [];
          map = `${typeOf(k, pkg)},${typeOf(v, pkg)}`;
        }
        fields.set(f.name, {
          name: f.name,
          number: f.number,
          type: typeOf(f, pkg),
          repeated: f.label === 'LABEL_REPEATED' && !entry,
          map,
          oneof: f.oneofIndex !== undefined && !synthetic ? (m.oneofDecl ?? [])[f.oneofIndex].name : null,
          optional: synthetic,
        });
      }
      const reserved = new Set<number>();
      for (const r of m.reservedRange ?? []) for (let n = r.start; n < r.end; n++) reserved.add(n);
      model.messages.set(name, { name, fields, reserved });
      msgNames.push(name);
      for (const e of m.enumType ?? []) addEnum(`${name}.${e.name}`, e);
      for (const n of m.nestedType ?? []) addMessage(name, n);
    };
    for (const m of file.messageType ?? []) addMessage('', m);
    for (const e of file.enumType ?? []) addEnum(e.name, e);
    for (const s of file.service ?? []) {
      const methods = new Map<string, NormMethod>();
      for (const m of s.method ?? []) {
        methods.set(m.name, {
          request: stripPackage(m.inputType, pkg),
          response: stripPackage(m.outputType, pkg),
          streaming: Boolean(m.clientStreaming) || Boolean(m.serverStreaming),
        });
      }
      model.services.set(s.name, methods);
    }
    model.messagesByFile.set(file.name, msgNames);
    model.enumsByFile.set(file.name, enumNames);
  }
  return model;
}

/** A protobufjs Root built from Qdrant's descriptors, used to decode/encode real bytes. */
function buildQdrantRoot(): protobuf.Root {
  const timestamp = FileDescriptorProto.fromObject({
    name: 'google/protobuf/timestamp.proto',
    package: 'google.protobuf',
    syntax: 'proto3',
    messageType: [
      {
        name: 'Timestamp',
        field: [
          { name: 'seconds', number: 1, label: 1, type: 3 },
          { name: 'nanos', number: 2, label: 1, type: 5 },
        ],
      },
    ],
  });
  const files = [timestamp, ...QDRANT_FILES.map((f) => FileDescriptorProto.decode(readQdrantDescriptorBytes(f)))];
  const set = FileDescriptorSet.encode(FileDescriptorSet.create({ file: files })).finish();
  // `fromDescriptor` is added to Root by protobufjs/ext/descriptor (imported above) but is not in its typings.
  const RootWithDescriptor = protobuf.Root as unknown as { fromDescriptor(bytes: Uint8Array): protobuf.Root };
  return RootWithDescriptor.fromDescriptor(set);
}

// ---------------------------------------------------------------------------------------------
// Our side: load the .proto files with protobufjs
// ---------------------------------------------------------------------------------------------

function loadOurRoot(files: string[]): protobuf.Root {
  const root = new protobuf.Root();
  // google/protobuf/* resolve to the definitions bundled with protobufjs
  root.resolvePath = (_origin: string, target: string): string =>
    target.startsWith('google/protobuf/') ? target : path.join(PROTO_ROOT, target);
  root.loadSync(files, { keepCase: true });
  root.resolveAll();
  return root;
}

function isSyntheticOneofMember(f: protobuf.Field): boolean {
  return f.options?.proto3_optional === true;
}

function ourTypeName(f: protobuf.Field, pkg: string): string {
  return f.resolvedType ? stripPackage(f.resolvedType.fullName, pkg) : f.type;
}

function buildOurModel(root: protobuf.Root, pkg: string): NormModel {
  const model = emptyModel();
  const walk = (ns: protobuf.NamespaceBase): void => {
    for (const obj of ns.nestedArray) {
      const name = stripPackage(obj.fullName, pkg);
      if (obj instanceof protobuf.Type) {
        const fields = new Map<string, NormField>();
        for (const f of obj.fieldsArray) {
          const synthetic = isSyntheticOneofMember(f);
          const map = f instanceof protobuf.MapField ? `${f.keyType},${ourTypeName(f, pkg)}` : null;
          fields.set(f.name, {
            name: f.name,
            number: f.id,
            type: map ? 'message' : ourTypeName(f, pkg),
            repeated: f.repeated && !map,
            map,
            oneof: f.partOf && !synthetic ? f.partOf.name : null,
            optional: synthetic,
          });
        }
        const reserved = new Set<number>();
        for (const r of obj.reserved ?? []) {
          if (Array.isArray(r)) for (let n = r[0]; n <= r[1]; n++) reserved.add(n);
        }
        model.messages.set(name, { name, fields, reserved });
        walk(obj);
      } else if (obj instanceof protobuf.Enum) {
        model.enums.set(name, new Map(Object.entries(obj.values)));
      } else if (obj instanceof protobuf.Service) {
        const methods = new Map<string, NormMethod>();
        for (const m of obj.methodsArray) {
          methods.set(m.name, {
            request: stripPackage(m.resolvedRequestType?.fullName ?? m.requestType, pkg),
            response: stripPackage(m.resolvedResponseType?.fullName ?? m.responseType, pkg),
            streaming: Boolean(m.requestStream) || Boolean(m.responseStream),
          });
        }
        model.services.set(name, methods);
      } else if (obj instanceof protobuf.Namespace) {
        walk(obj);
      }
    }
  };
  const ns = root.lookup(pkg);
  if (!(ns instanceof protobuf.Namespace)) throw new Error(`package ${pkg} not found`);
  walk(ns);
  return model;
}

/** Map field types on the Qdrant side are the entry type; normalize both sides to compare the same thing. */
function sameType(ours: NormField, theirs: NormField): boolean {
  if (ours.map || theirs.map) return ours.map === theirs.map;
  return ours.type === theirs.type;
}

// ---------------------------------------------------------------------------------------------
// Sample messages for byte-level round trips
// ---------------------------------------------------------------------------------------------

type Sample = Record<string, unknown>;

function scalarSample(type: string): unknown {
  switch (type) {
    case 'double':
      return 1.5;
    case 'float':
      return 2.5;
    case 'int64':
    case 'sint64':
    case 'sfixed64':
      return -1234567;
    case 'uint64':
    case 'fixed64':
      return 9876543;
    case 'int32':
    case 'sint32':
    case 'sfixed32':
      return -42;
    case 'uint32':
    case 'fixed32':
      return 42;
    case 'bool':
      return true;
    case 'string':
      return 'sample';
    case 'bytes':
      return Buffer.from([1, 2, 3]);
    default:
      throw new Error(`unexpected scalar type ${type}`);
  }
}

/**
 * A message with every field set to a non-default value. For each real oneof the `variant`-th member
 * (modulo its size) is chosen, so that calling this with variant 0..n-1 exercises every member.
 */
function buildSample(type: protobuf.Type, variant: number, depth: number): Sample {
  const out: Sample = {};
  for (const oneof of type.oneofsArray) {
    if (oneof.fieldsArray.some(isSyntheticOneofMember)) continue;
    const members = oneof.fieldsArray;
    const chosen = members[variant % members.length];
    const value = fieldSample(chosen, variant, depth);
    if (value !== undefined) out[chosen.name] = value;
  }
  for (const f of type.fieldsArray) {
    if (f.partOf && !isSyntheticOneofMember(f)) continue;
    const value = fieldSample(f, variant, depth);
    if (value === undefined) continue;
    if (f instanceof protobuf.MapField) {
      const key = f.keyType === 'string' ? 'key' : '7';
      out[f.name] = { [key]: value };
    } else {
      out[f.name] = f.repeated ? [value, value] : value;
    }
  }
  return out;
}

function fieldSample(f: protobuf.Field, variant: number, depth: number): unknown {
  const t = f.resolvedType;
  if (t instanceof protobuf.Enum) {
    const numbers = Object.values(t.values);
    return numbers[numbers.length - 1];
  }
  if (t instanceof protobuf.Type) {
    if (t.fullName === '.google.protobuf.Timestamp') return { seconds: 1700000000, nanos: 5 };
    if (depth >= 3) return undefined;
    return buildSample(t, variant, depth + 1);
  }
  return scalarSample(f.type);
}

const TO_OBJECT: protobuf.IConversionOptions = {
  longs: String,
  enums: String,
  bytes: String,
  oneofs: true,
  defaults: false,
};

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

describe('proto wire compatibility with Qdrant 1.19', () => {
  const qdrantFiles = QDRANT_FILES.map(decodeQdrantFile);
  const qdrant = buildQdrantModel(qdrantFiles);
  const ourRoot = loadOurRoot(OUR_FILES);
  const ours = buildOurModel(ourRoot, 'vectorstore');

  it('should decode the descriptors embedded in the Qdrant client', () => {
    expect(qdrantFiles.map((f) => f.package)).toEqual(QDRANT_FILES.map(() => 'qdrant'));
    expect(qdrant.messages.size).toBeGreaterThan(200);
    expect(qdrant.services.has('Collections')).toBe(true);
    expect(qdrant.services.has('Points')).toBe(true);
    expect(qdrant.services.has('Qdrant')).toBe(true);
  });

  it('should define only messages and enums that exist in Qdrant', () => {
    expect([...ours.messages.keys()].filter((m) => !qdrant.messages.has(m))).toEqual([]);
    expect([...ours.enums.keys()].filter((e) => !qdrant.enums.has(e))).toEqual([]);
  });

  it('should give every shared field the same number, type, label, oneof and presence as Qdrant', () => {
    const problems: string[] = [];
    const notOurs: string[] = [];
    for (const [name, our] of ours.messages) {
      const their = qdrant.messages.get(name);
      if (!their) continue;
      for (const f of our.fields.values()) {
        const q = their.fields.get(f.name);
        if (!q) {
          problems.push(`${name}.${f.name}: not in Qdrant`);
          continue;
        }
        const same =
          f.number === q.number &&
          sameType(f, q) &&
          f.repeated === q.repeated &&
          f.oneof === q.oneof &&
          f.optional === q.optional;
        if (!same) problems.push(`${name}.${f.name}: ours ${describeField(f)} / Qdrant ${describeField(q)}`);
      }
      const ourNumbers = new Map([...our.fields.values()].map((f) => [f.number, f.name]));
      for (const q of their.fields.values()) {
        if (our.fields.has(q.name)) continue;
        const clash = ourNumbers.get(q.number);
        if (clash) problems.push(`${name}: number ${q.number} is ${clash} in ours but ${q.name} in Qdrant`);
        else notOurs.push(`${name}.${q.name} (${describeField(q)})`);
      }
      for (const n of our.reserved) {
        if (!their.reserved.has(n)) problems.push(`${name}: reserves ${n}, Qdrant does not`);
      }
    }
    if (notOurs.length > 0) {
      console.log(`Qdrant fields not in our protos (${notOurs.length}):\n  ${notOurs.join('\n  ')}`);
    }
    expect(problems).toEqual([]);
  });

  it('should give every shared enum the same value names and numbers as Qdrant', () => {
    const problems: string[] = [];
    const notOurs: string[] = [];
    for (const [name, values] of ours.enums) {
      const their = qdrant.enums.get(name);
      if (!their) continue;
      for (const [value, number] of values) {
        if (their.get(value) !== number)
          problems.push(`${name}.${value}: ours ${number} / Qdrant ${String(their.get(value))}`);
      }
      for (const [value, number] of their) {
        if (!values.has(value)) notOurs.push(`${name}.${value}=${number}`);
      }
    }
    if (notOurs.length > 0) console.log(`Qdrant enum values not in our protos: ${notOurs.join(', ')}`);
    expect(problems).toEqual([]);
  });

  it('should serve every RPC of Collections, Points and Qdrant with the same request and response types', () => {
    for (const service of OUR_SERVICES) {
      const our = ours.services.get(service);
      const their = qdrant.services.get(service);
      expect(our).toBeDefined();
      expect(their).toBeDefined();
      if (!our || !their) continue;
      expect(Object.fromEntries(our)).toEqual(Object.fromEntries(their));
    }
    expect([...ours.services.keys()].sort()).toEqual([...OUR_SERVICES].sort());
  });

  it('should contain every collections message and enum of the spec, with the spec enum values', () => {
    expect(SPEC_MESSAGES.filter((m) => !ours.messages.has(m))).toEqual([]);
    expect(SPEC_MESSAGES.filter((m) => !qdrant.messages.has(m))).toEqual([]);
    for (const [name, values] of Object.entries(SPEC_ENUMS)) {
      expect([name, Object.fromEntries(ours.enums.get(name) ?? new Map<string, number>())]).toEqual([name, values]);
    }
    for (const [name, numbers] of Object.entries(SPEC_RESERVED)) {
      expect([name, [...(ours.messages.get(name)?.reserved ?? [])].sort((a, b) => a - b)]).toEqual([name, numbers]);
    }
    const skipped = (qdrant.messagesByFile.get('collections.proto') ?? []).filter((m) => !ours.messages.has(m));
    if (skipped.length > 0) console.log(`Qdrant collections.proto messages not in our protos: ${skipped.join(', ')}`);
  });

  it('should contain every message and enum of Qdrant points, common, JSON value and health files', () => {
    for (const file of ['points.proto', 'qdrant_common.proto', 'json_with_int.proto', 'qdrant.proto']) {
      const missingMessages = (qdrant.messagesByFile.get(file) ?? []).filter((m) => !ours.messages.has(m));
      const missingEnums = (qdrant.enumsByFile.get(file) ?? []).filter((e) => !ours.enums.has(e));
      expect([file, missingMessages, missingEnums]).toEqual([file, [], []]);
    }
  });

  it("should round-trip sample messages through Qdrant's schema without losing data", () => {
    const qdrantRoot = buildQdrantRoot();
    const problems: string[] = [];
    let checked = 0;
    for (const name of ours.messages.keys()) {
      const ourType = ourRoot.lookupType(`vectorstore.${name}`);
      const theirType = qdrantRoot.lookupType(`qdrant.${name}`);
      const variants = Math.max(1, ...ourType.oneofsArray.map((o) => o.fieldsArray.length));
      for (let v = 0; v < variants; v++) {
        const original = ourType.fromObject(buildSample(ourType, v, 0));
        const bytes = ourType.encode(original).finish();
        const viaQdrant = theirType.encode(theirType.decode(bytes)).finish();
        const expected = ourType.toObject(ourType.decode(bytes), TO_OBJECT);
        const actual = ourType.toObject(ourType.decode(viaQdrant), TO_OBJECT);
        if (JSON.stringify(actual) !== JSON.stringify(expected)) problems.push(`${name} (variant ${v})`);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(ours.messages.size);
    expect(problems).toEqual([]);
  });

  it('should write type references unqualified so the package can be rewritten to qdrant', () => {
    for (const file of OUR_FILES) {
      const text = fs.readFileSync(path.join(PROTO_ROOT, file), 'utf8');
      expect([file, text.match(/^package .*;$/m)?.[0]]).toEqual([file, 'package vectorstore;']);
      const code = text.replace(/\/\/.*$/gm, '');
      expect([file, code.match(/\bvectorstore\.[A-Za-z]/g)]).toEqual([file, null]);
      const imports = [...code.matchAll(/^import "([^"]+)";/gm)].map((m) => m[1]);
      expect(imports.filter((i) => !i.startsWith('vectorstore/') && !i.startsWith('google/protobuf/'))).toEqual([]);
    }
  });

  it('should define the standard gRPC health service with Check only', () => {
    const root = loadOurRoot(['grpc/health/v1/health.proto']);
    const health = root.lookupService('grpc.health.v1.Health');
    expect(Object.keys(health.methods)).toEqual(['Check']);
    expect(health.methods.Check.requestType).toBe('HealthCheckRequest');
    expect(health.methods.Check.responseType).toBe('HealthCheckResponse');
    expect(root.lookupType('grpc.health.v1.HealthCheckRequest').fields.service.id).toBe(1);
    expect(root.lookupType('grpc.health.v1.HealthCheckResponse').fields.status.id).toBe(1);
    expect(root.lookupEnum('grpc.health.v1.HealthCheckResponse.ServingStatus').values).toEqual({
      UNKNOWN: 0,
      SERVING: 1,
      NOT_SERVING: 2,
      SERVICE_UNKNOWN: 3,
    });
  });
});
