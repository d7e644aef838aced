/**
 * A tiny ONNX "cross-encoder" written in code (no binary fixture): inputs input_ids / attention_mask /
 * token_type_ids (int64 [batch, seq]), output logits [batch, 1] = number of tokens of the second text
 * (Σ attention_mask · token_type_ids). Real enough to test pair encoding, truncation, batching and
 * the logit → [0, 1] mapping of CrossEncoderReranker; its "relevance" is simply the passage length.
 */
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FIXTURES } from '../helpers/shared-data';
import { encode, type Field } from '../../src/index/exact-search';

// The project's protobuf writer (src/index/exact-search.ts) encodes the fixture's ONNX graph too.
const FLOAT = 1;
const INT64 = 7;
const dim = (d: number | string): Field => (typeof d === 'number' ? [1, 'msg', [[1, 'varint', d]]] : [1, 'msg', [[2, 'bytes', d]]]);
const valueInfo = (no: number, name: string, elem: number, dims: (number | string)[]): Field => [
  no,
  'msg',
  [
    [1, 'bytes', name],
    [
      2,
      'msg',
      [
        [
          1,
          'msg',
          [
            [1, 'varint', elem],
            [2, 'msg', dims.map(dim)],
          ],
        ],
      ],
    ],
  ],
];
const node = (inputs: string[], outputs: string[], op: string, attrs: Field[] = []): Field => [
  1,
  'msg',
  [
    ...inputs.map((i): Field => [1, 'bytes', i]),
    ...outputs.map((o): Field => [2, 'bytes', o]),
    [3, 'bytes', `${op}_${outputs[0]}`],
    [4, 'bytes', op],
    ...attrs,
  ],
];
const intAttr = (name: string, v: number): Field => [
  5,
  'msg',
  [
    [1, 'bytes', name],
    [3, 'varint', v],
    [20, 'varint', 2],
  ],
];
const intsAttr = (name: string, vs: number[]): Field => [
  5,
  'msg',
  [[1, 'bytes', name], ...vs.map((v): Field => [8, 'varint', v]), [20, 'varint', 7]],
];

export function passageLengthModel(): Uint8Array {
  const graph: Field[] = [
    node(['attention_mask', 'token_type_ids'], ['m'], 'Mul'),
    node(['m'], ['mf'], 'Cast', [intAttr('to', FLOAT)]),
    node(['mf'], ['logits'], 'ReduceSum', [intsAttr('axes', [1]), intAttr('keepdims', 1)]),
    [2, 'bytes', 'passage_length'],
    valueInfo(11, 'input_ids', INT64, ['b', 's']),
    valueInfo(11, 'attention_mask', INT64, ['b', 's']),
    valueInfo(11, 'token_type_ids', INT64, ['b', 's']),
    valueInfo(12, 'logits', FLOAT, ['b', 1]),
  ];
  return encode([
    [1, 'varint', 7],
    [2, 'bytes', 'openiti-rag-test'],
    [
      8,
      'msg',
      [
        [1, 'bytes', ''],
        [2, 'varint', 11],
      ],
    ],
    [7, 'msg', graph],
  ]);
}

/** A model dir (tmp) with the passage-length model and the WordLevel fixture tokenizer. */
export function crossEncoderDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'xenc-'));
  writeFileSync(path.join(dir, 'model.onnx'), passageLengthModel());
  copyFileSync(path.join(FIXTURES, 'retrieval', 'cross-encoder', 'tokenizer.json'), path.join(dir, 'tokenizer.json'));
  return dir;
}
