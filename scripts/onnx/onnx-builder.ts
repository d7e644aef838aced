/**
 * Minimal ONNX graph builder on top of protobufjs and the official `onnx.proto`
 * (vendored from the `onnx` 1.17.0 PyPI wheel, Apache-2.0). protobufjs does all the
 * encoding; this file only keeps names unique and nodes in topological (insertion) order.
 * Output bytes depend only on the calls made, so a fixed build sequence is deterministic.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

const PROTO_PATH = path.join(path.dirname(fileURLToPath(import.meta.url)), 'onnx.proto');

/** onnx.TensorProto.DataType values used here. */
export const DT = {
  FLOAT: 1,
  UINT8: 2,
  INT8: 3,
  INT32: 6,
  INT64: 7,
  FLOAT16: 10,
} as const;
export type DataType = (typeof DT)[keyof typeof DT];

/** onnx.AttributeProto.AttributeType values. */
const AT = { FLOAT: 1, INT: 2, STRING: 3, FLOATS: 6, INTS: 7 } as const;

/** Attribute values are tagged so that e.g. `epsilon: 1` cannot silently become an INT. */
export type Attr =
  | { kind: 'int'; value: number }
  | { kind: 'float'; value: number }
  | { kind: 'ints'; value: number[] }
  | { kind: 'floats'; value: number[] }
  | { kind: 'string'; value: string };
export const int = (value: number): Attr => ({ kind: 'int', value });
export const float = (value: number): Attr => ({ kind: 'float', value });
export const ints = (value: number[]): Attr => ({ kind: 'ints', value });
export const str = (value: string): Attr => ({ kind: 'string', value });

type Dim = number | string;

interface ProtoObject {
  [k: string]: unknown;
}

function valueInfo(name: string, elemType: DataType, dims: Dim[]): ProtoObject {
  return {
    name,
    type: {
      tensor_type: {
        elem_type: elemType,
        shape: { dim: dims.map((d) => (typeof d === 'number' ? { dim_value: d } : { dim_param: d })) },
      },
    },
  };
}

function attrProto(name: string, a: Attr): ProtoObject {
  switch (a.kind) {
    case 'int':
      if (!Number.isInteger(a.value)) throw new Error(`attribute ${name}: ${a.value} is not an integer`);
      return { name, type: AT.INT, i: a.value };
    case 'float':
      return { name, type: AT.FLOAT, f: a.value };
    case 'ints':
      return { name, type: AT.INTS, ints: a.value };
    case 'floats':
      return { name, type: AT.FLOATS, floats: a.value };
    case 'string':
      return { name, type: AT.STRING, s: new TextEncoder().encode(a.value) };
  }
}

const BYTES_PER: Record<DataType, number> = { 1: 4, 2: 1, 3: 1, 6: 4, 7: 8, 10: 2 };

/** Little-endian bytes of a typed array (Node only runs on little-endian hosts here). */
export function rawBytes(a: ArrayBufferView): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

export class OnnxGraph {
  private readonly nodes: ProtoObject[] = [];
  private readonly initializers: ProtoObject[] = [];
  private readonly inputs: ProtoObject[] = [];
  private readonly outputs: ProtoObject[] = [];
  private readonly names = new Set<string>();
  private counter = 0;

  constructor(readonly name: string) {}

  private claim(name: string): string {
    if (this.names.has(name)) throw new Error(`ONNX graph: duplicate value name '${name}'`);
    this.names.add(name);
    return name;
  }

  /** A fresh value name derived from `hint`. */
  fresh(hint: string): string {
    let n = hint;
    while (this.names.has(n)) n = `${hint}_${++this.counter}`;
    return n;
  }

  input(name: string, elemType: DataType, dims: Dim[]): string {
    this.inputs.push(valueInfo(this.claim(name), elemType, dims));
    return name;
  }

  output(name: string, elemType: DataType, dims: Dim[]): void {
    if (!this.names.has(name)) throw new Error(`ONNX graph: output '${name}' is never produced`);
    this.outputs.push(valueInfo(name, elemType, dims));
  }

  /** A constant tensor stored as raw little-endian bytes. */
  initializer(name: string, dataType: DataType, dims: number[], raw: Uint8Array): string {
    const count = dims.reduce((a, b) => a * b, 1);
    if (raw.byteLength !== count * BYTES_PER[dataType]) {
      throw new Error(`initializer ${name}: ${raw.byteLength} bytes for dims [${dims}] of type ${dataType}`);
    }
    this.initializers.push({ name: this.claim(this.fresh(name)), data_type: dataType, dims, raw_data: raw });
    return this.initializers[this.initializers.length - 1]!.name as string;
  }

  f32(name: string, values: ArrayLike<number>, dims: number[]): string {
    return this.initializer(name, DT.FLOAT, dims, rawBytes(Float32Array.from(values)));
  }

  i64(name: string, values: number[], dims: number[]): string {
    return this.initializer(name, DT.INT64, dims, rawBytes(BigInt64Array.from(values.map(BigInt))));
  }

  u8(name: string, values: number[], dims: number[]): string {
    return this.initializer(name, DT.UINT8, dims, Uint8Array.from(values));
  }

  /**
   * Append a node. `outputs` are name hints (made unique); returns the actual output names.
   * Pass '' in `inputs` for a skipped optional input.
   */
  node(opType: string, inputs: string[], outputs: string[], attrs: Record<string, Attr> = {}, domain = ''): string[] {
    for (const i of inputs) {
      if (i !== '' && !this.names.has(i)) throw new Error(`ONNX graph: ${opType} uses undefined value '${i}'`);
    }
    const outs = outputs.map((o) => this.claim(this.fresh(o)));
    const node: ProtoObject = {
      name: `${opType}_${this.nodes.length}`,
      op_type: opType,
      input: inputs,
      output: outs,
      attribute: Object.keys(attrs).map((k) => attrProto(k, attrs[k]!)),
    };
    if (domain) node.domain = domain;
    this.nodes.push(node);
    return outs;
  }

  /** Single-output convenience wrapper around node(). */
  op(opType: string, inputs: string[], out: string, attrs: Record<string, Attr> = {}, domain = ''): string {
    return this.node(opType, inputs, [out], attrs, domain)[0]!;
  }

  /** Encode the model. */
  encode(opts: {
    irVersion: number;
    opsets: Record<string, number>;
    producerName: string;
    producerVersion: string;
    docString?: string;
    metadata?: Record<string, string>;
  }): Uint8Array {
    const root = new protobuf.Root().loadSync(PROTO_PATH, { keepCase: true });
    const ModelProto = root.lookupType('onnx.ModelProto');
    const model = {
      ir_version: opts.irVersion,
      opset_import: Object.keys(opts.opsets).map((domain) => ({ domain, version: opts.opsets[domain] })),
      producer_name: opts.producerName,
      producer_version: opts.producerVersion,
      doc_string: opts.docString ?? '',
      metadata_props: Object.keys(opts.metadata ?? {}).map((key) => ({ key, value: opts.metadata![key] })),
      graph: {
        name: this.name,
        node: this.nodes,
        initializer: this.initializers,
        input: this.inputs,
        output: this.outputs,
      },
    };
    const err = ModelProto.verify(model);
    if (err) throw new Error(`ONNX model does not match onnx.proto: ${err}`);
    return ModelProto.encode(ModelProto.fromObject(model)).finish();
  }
}
